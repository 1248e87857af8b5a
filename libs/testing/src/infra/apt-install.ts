import { run, which, type Log } from './util';

export type AptInstall = { attempted: true; code: number; lastError: string } | { attempted: false; why: string };

/**
 * Installs Debian packages with apt-get when allowed and possible (root and apt-get present), the
 * way every tool the specs need is provisioned (nats-server, bubblewrap, prometheus, chromium,
 * python3-flask): install, and when that fails (a fresh machine's package lists may be empty or
 * stale) update the lists once and try again. Whether the tool is usable afterwards is the caller's
 * own check.
 */
export async function aptInstall(packages: readonly string[], { allowInstall = true, log, purpose, timeoutMs = 600_000 }: { allowInstall?: boolean; log: Log; purpose: string; timeoutMs?: number }): Promise<AptInstall> {
  const apt = which('apt-get');
  if (!allowInstall) return { attempted: false, why: 'installing is not allowed here' };
  if (!apt) return { attempted: false, why: 'apt-get is not available' };
  if (process.getuid?.() !== 0) return { attempted: false, why: 'not running as root' };
  log(`installing ${packages.join(' ')} with apt-get ${purpose}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => run(apt, ['install', '-y', '--no-install-recommends', ...packages], { env, timeoutMs });
  let result = await install();
  if (result.code !== 0) {
    await run(apt, ['update'], { env, timeoutMs: 300_000 });
    result = await install();
  }
  return { attempted: true, code: result.code, lastError: result.stderr.trim().split('\n').pop() ?? '' };
}

/** The sentence a caller logs or throws when the tool is still missing. */
export function missingReason(pkg: string, outcome: AptInstall, help: string): string {
  return outcome.attempted ? `apt-get could not install ${pkg} (${outcome.lastError}). ${help}` : `${help} (not installed automatically: ${outcome.why})`;
}
