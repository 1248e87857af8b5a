import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { aptInstall, missingReason } from './apt-install';
import { stderrLog, which, type Log } from './util';

export type ChromiumStatus = { installed: true; bin: string; provisioned: boolean } | { installed: false; reason: string };

export const CHROMIUM_MISSING_HELP =
  'Chromium was not found: the dashboard browser specs drive it headless with playwright-core (the npm ' +
  'browser download is not used). Install it (Debian: `sudo apt-get install -y chromium`; Ubuntu: ' +
  '`sudo apt-get install -y chromium-browser`), or set CHROMIUM_PATH to a Chromium or Chrome binary.';

export function findChromium(): string | undefined {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return isAbsolute(configured) ? (existsSync(configured) ? configured : undefined) : which(configured);
  for (const name of ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']) {
    const found = which(name, ['/usr/bin', '/usr/local/bin', '/snap/bin']);
    if (found) return found;
  }
  return undefined;
}

/**
 * Finds Chromium, installing the Debian package with apt-get when allowed and possible (root +
 * apt-get), as for nats-server. Never throws: without it only the browser specs skip, saying why.
 */
export async function ensureChromium({ allowInstall = true, log = stderrLog }: { allowInstall?: boolean; log?: Log } = {}): Promise<ChromiumStatus> {
  const found = findChromium();
  if (found) return { installed: true, bin: found, provisioned: false };
  const outcome = await aptInstall(['chromium'], { allowInstall, log, purpose: 'for the dashboard browser specs' });
  const installed = findChromium();
  if (installed) return { installed: true, bin: installed, provisioned: true };
  const reason = missingReason('chromium', outcome, CHROMIUM_MISSING_HELP);
  log(reason);
  return { installed: false, reason };
}
