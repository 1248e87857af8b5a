import { describe, expect, it } from 'vitest';
import { aptInstall, missingReason } from './apt-install';

describe('provisioning a tool from Debian packages', () => {
  it('installs nothing when installing is not allowed, and says so in the reason', async () => {
    const lines: string[] = [];
    const outcome = await aptInstall(['nats-server'], { allowInstall: false, log: (line) => lines.push(line), purpose: 'for the specs' });
    expect(outcome).toEqual({ attempted: false, why: 'installing is not allowed here' });
    expect(lines).toEqual([]);
    expect(missingReason('nats-server', outcome, 'Install nats-server.')).toBe('Install nats-server. (not installed automatically: installing is not allowed here)');
  });

  it('names apt-get’s last error when an attempt did not give the tool', () => {
    expect(missingReason('chromium', { attempted: true, code: 100, lastError: 'E: Unable to locate package chromium' }, 'Set CHROMIUM_PATH.')).toBe(
      'apt-get could not install chromium (E: Unable to locate package chromium). Set CHROMIUM_PATH.',
    );
  });
});
