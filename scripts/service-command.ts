import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * V8 flags every service runs with. A 4 MB young generation (V8 would grow it to 16 MB per
 * semi-space) keeps an idle service around 130 MB RSS instead of 175 MB, at no measurable cost to
 * the command → projection latency. (The cost governor would do ~15 % more may-spend + record-usage
 * pairs/s with 16 MB, but idles at 133–147 MB then, too close to the 150 MB target.) Old space is capped at 192 MB: the team-manager's live heap
 * stays ~50 MB under load (--trace-gc), but uncapped V8 lets garbage grow the heap to ~180 MB
 * between major GCs (see `npm run bench`, team-manager-scale).
 */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=4', '--max-old-space-size=192'];

/**
 * The node arguments that start one service: its compiled entry point next to this file's dist/
 * tree when there is one (npm start, benches), else the TypeScript source through SWC.
 * `distRoot` is the folder holding apps/ (dist/ when compiled, the repo root from source).
 */
export function serviceCommand(app: string, distRoot: string, repoRoot = distRoot): string[] {
  const compiled = join(distRoot, 'apps', app, 'src', 'main.js');
  if (existsSync(compiled)) return [...SERVICE_NODE_FLAGS, compiled];
  return [...SERVICE_NODE_FLAGS, '-r', '@swc-node/register', join(repoRoot, 'apps', app, 'src', 'main.ts')];
}
