import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * V8 flags every service runs with. The young generation is capped at 8 MB per semi-space (V8 would
 * grow it to 16 MB). Measured with the slice and cost-governor benches, semi-space size against idle
 * RSS of the five services and cost-governor CPU per may-spend + record-usage pair:
 * - 4 MB: 121–130 MB idle; 0.65–0.67 ms per pair;
 * - 8 MB: 129–136 MB idle; 0.54–0.56 ms per pair (1,415–1,448 against 1,319–1,327 pairs/s);
 * - 16 MB: 143–151 MB idle, at or past the 150 MB target; 0.48–0.49 ms per pair.
 * Old space is capped at 192 MB: the team-manager's live heap stays ~50 MB under load (--trace-gc),
 * but uncapped V8 lets garbage grow the heap to ~180 MB between major GCs (see `npm run bench`,
 * team-manager-scale).
 */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=8', '--max-old-space-size=192'];

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
