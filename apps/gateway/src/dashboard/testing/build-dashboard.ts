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
  const sources = Math.max(newestMtime(join(WEB, 'src')), newestMtime(join(WEB, 'index.html')), newestMtime(join(WEB, 'vite.config.mts')));
  if (dashboardBuilt(out) && statSync(join(out, 'index.html')).mtimeMs > sources) return out;
  const { build } = await import('vite');
  await build({ configFile: join(WEB, 'vite.config.mts'), build: { outDir: out }, logLevel: 'warn' });
  return out;
}
