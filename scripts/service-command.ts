import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * V8 flags the services run with. A 4 MB young generation (V8 would grow it to 16 MB per
 * semi-space) keeps an idle service around 130 MB RSS instead of 175 MB, at no measurable cost to
 * the command → projection latency. Old space is capped at 192 MB: the team-manager's live heap
 * stays ~50 MB under load (--trace-gc), but uncapped V8 lets garbage grow the heap to ~180 MB
 * between major GCs (see `npm run bench`, team-manager-scale).
 * The cost governor answers two requests per model call of every agent and spent a quarter of its
 * CPU in scavenges with 4 MB: with 16 MB it does 790–840 may-spend + record-usage pairs/s instead of
 * 660–690 (CPU per pair 1.45 → 1.05 ms) for ~25 MB more RSS under load (cost-governor bench).
 */
export function serviceNodeFlags(app: string): string[] {
  return [`--max-semi-space-size=${app === 'cost-governor' ? 16 : 4}`, '--max-old-space-size=192'];
}

/**
 * The node arguments that start one service: its compiled entry point next to this file's dist/
 * tree when there is one (npm start, benches), else the TypeScript source through SWC.
 * `distRoot` is the folder holding apps/ (dist/ when compiled, the repo root from source).
 */
export function serviceCommand(app: string, distRoot: string, repoRoot = distRoot): string[] {
  const compiled = join(distRoot, 'apps', app, 'src', 'main.js');
  if (existsSync(compiled)) return [...serviceNodeFlags(app), compiled];
  return [...serviceNodeFlags(app), '-r', '@swc-node/register', join(repoRoot, 'apps', app, 'src', 'main.ts')];
}
