import { aptInstall, missingReason } from './apt-install';
import { stderrLog, which, type Log } from './util';

export type BubblewrapStatus = { installed: true; bin: string; provisioned: boolean } | { installed: false; reason: string };

export const BUBBLEWRAP_MISSING_HELP =
  'bubblewrap (bwrap) was not found: agent sessions refuse to start without it. Install it ' +
  '(Debian/Ubuntu: `sudo apt-get install -y bubblewrap`; Fedora: `sudo dnf install bubblewrap`), ' +
  'or set HS_SANDBOX=off to run agents unsandboxed (not safe with a real API key).';

export function findBubblewrap(): string | undefined {
  return which('bwrap', ['/usr/bin', '/usr/local/bin']);
}

/**
 * Finds bwrap, installing the Debian package with apt-get when allowed and possible (root +
 * apt-get), as for nats-server. Never throws: a machine without it still runs everything but agent
 * sessions, and says so.
 */
export async function ensureBubblewrap({ allowInstall = true, log = stderrLog }: { allowInstall?: boolean; log?: Log } = {}): Promise<BubblewrapStatus> {
  const found = findBubblewrap();
  if (found) return { installed: true, bin: found, provisioned: false };
  const outcome = await aptInstall(['bubblewrap'], { allowInstall, log, purpose: 'for the agent sandbox' });
  const installed = findBubblewrap();
  if (installed) return { installed: true, bin: installed, provisioned: true };
  const reason = missingReason('bubblewrap', outcome, BUBBLEWRAP_MISSING_HELP);
  log(reason);
  return { installed: false, reason };
}
