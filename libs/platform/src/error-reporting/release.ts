import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

let cached: string | undefined;

/** The version Headspace runs as: HEADSPACE_VERSION, else the checkout's package.json (found upwards from here, in src/ or dist/). */
export function headspaceRelease(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HEADSPACE_VERSION) return env.HEADSPACE_VERSION;
  cached ??= packageVersion(__dirname) ?? '0.0.0';
  return cached;
}

function packageVersion(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'headspace' && pkg.version) return pkg.version;
    } catch {
      // no package.json here: keep looking upwards
    }
    if (dirname(dir) === dir) return undefined;
  }
}
