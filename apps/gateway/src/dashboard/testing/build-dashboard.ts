import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { dashboardBuilt, dashboardDir } from '../dashboard-files';

const WEB = join(__dirname, '..', '..', '..', 'web');

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

/**
 * Builds the SPA where the gateway serves it from (apps/gateway/web/dist) unless a build newer than
 * every source is there: specs never depend on an earlier `npm run build`.
 */
export async function ensureDashboardBuilt(): Promise<string> {
  const out = dashboardDir();
  // This file counts too: how it builds changes the output.
  const sources = Math.max(newestMtime(join(WEB, 'src')), newestMtime(join(WEB, 'index.html')), newestMtime(join(WEB, 'vite.config.mts')), newestMtime(__filename));
  if (dashboardBuilt(out) && statSync(join(out, 'index.html')).mtimeMs > sources) return out;
  const { build } = await import('vite');
  // Vite and its React plugin keep a NODE_ENV already set, and vitest sets `test`: React and the
  // JSX runtime would be bundled in their development builds (2× the size, and not what
  // `npm run build` serves). Set for the build only (specs build in beforeAll, before anything runs).
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: join(WEB, 'vite.config.mts'), mode: 'production', build: { outDir: out }, logLevel: 'warn' });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  return out;
}
