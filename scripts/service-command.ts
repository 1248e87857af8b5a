import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * V8 flags every service runs with. The young generation is capped at 8 MB per semi-space (V8 would
 * grow it to 16 MB): the largest that keeps the five services' idle RSS under the 150 MB target,
 * and less CPU per command than 4 MB. Old space is capped at 192 MB, well above a service's live
 * heap under load, so garbage cannot grow the heap between major GCs as far as uncapped V8 lets it.
 * Figures: bench/README.md (service flags).
 */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=8', '--max-old-space-size=192'];

/** The telemetry preload without its extension, relative to the folder holding libs/. */
export const TELEMETRY_PRELOAD = join('libs', 'telemetry', 'src', 'preload');

/**
 * The node arguments that start one service: its compiled entry point next to this file's dist/
 * tree when there is one (npm start, benches), else the TypeScript source through SWC. Either way
 * the OpenTelemetry preload (libs/telemetry/src/preload.ts) runs first, so its instrumentations
 * patch http, pg and the rest before the service requires them; it names the service after the app.
 * `distRoot` is the folder holding apps/ (dist/ when compiled, the repo root from source).
 */
export function serviceCommand(app: string, distRoot: string, repoRoot = distRoot): string[] {
  const compiled = join(distRoot, 'apps', app, 'src', 'main.js');
  if (existsSync(compiled)) return [...SERVICE_NODE_FLAGS, '-r', join(distRoot, TELEMETRY_PRELOAD + '.js'), compiled];
  return [...SERVICE_NODE_FLAGS, '-r', '@swc-node/register', '-r', join(repoRoot, TELEMETRY_PRELOAD + '.ts'), join(repoRoot, 'apps', app, 'src', 'main.ts')];
}

