import { aptInstall } from './apt-install';
import { existsSync } from 'node:fs';
import { run, stderrLog, which, type Log } from './util';

/**
 * Python for the exception-ingest client tests: Flask apps reporting their 500s through Debian's
 * python3-sentry-sdk and through the stdlib handler in examples/ops/python.
 */
export type PythonClientsStatus =
  | { available: true; python: string; sentrySdk: boolean; flask: boolean; provisioned: boolean }
  | { available: false; reason: string };

const DEBIAN_PACKAGES = ['python3-flask', 'python3-sentry-sdk'];

/** Debian's interpreter first: apt-get installs packages for /usr/bin/python3, not for a pyenv shim on PATH. */
function pythons(): string[] {
  const found = [existsSync('/usr/bin/python3') ? '/usr/bin/python3' : undefined, which('python3')];
  return [...new Set(found.filter((p): p is string => p !== undefined))];
}

async function hasModule(python: string, module: string): Promise<boolean> {
  return (await run(python, ['-c', `import ${module}`], { timeoutMs: 30_000 })).code === 0;
}

/**
 * The python3 that has flask and sentry_sdk, installing Debian's packages with apt-get when allowed
 * and possible (root + apt-get), as nats-server and bubblewrap are. Never throws: without python3
 * the caller skips with the reason; with python3 but without the packages it says which is missing.
 */
export async function ensurePythonClients({ allowInstall = true, log = stderrLog }: { allowInstall?: boolean; log?: Log } = {}): Promise<PythonClientsStatus> {
  const candidates = pythons();
  const probe = async () => {
    for (const python of candidates) {
      const [flask, sentrySdk] = [await hasModule(python, 'flask'), await hasModule(python, 'sentry_sdk')];
      if (flask && sentrySdk) return { python, flask, sentrySdk };
    }
    return undefined;
  };
  if (candidates.length === 0) return { available: false, reason: 'python3 was not found on PATH or in /usr/bin' };
  const found = await probe();
  if (found) return { available: true, ...found, provisioned: false };
  const outcome = await aptInstall(DEBIAN_PACKAGES, { allowInstall, log, purpose: '(flask or sentry_sdk missing)' });
  const installed = await probe();
  if (installed) return { available: true, ...installed, provisioned: true };
  if (outcome.attempted) log(`apt-get could not install ${DEBIAN_PACKAGES.join(' ')}: ${outcome.lastError}`);
  const python = candidates[0];
  return { available: true, python, flask: await hasModule(python, 'flask'), sentrySdk: await hasModule(python, 'sentry_sdk'), provisioned: false };
}
