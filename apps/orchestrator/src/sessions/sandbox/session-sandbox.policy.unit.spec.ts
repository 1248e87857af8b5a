import { DEFAULT_SANDBOX, TEAM_LEAD } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { sessionSandbox } from './session-sandbox.policy';

describe('sessionSandbox (team settings → one session)', () => {
  it('sandboxes every session with no network when the team has no settings (the default)', () => {
    expect(DEFAULT_SANDBOX).toEqual({ mode: 'all', workspaceAccess: 'rw', network: false });
    expect(sessionSandbox(undefined, 'con')).toEqual({ sandboxed: true, workspaceAccess: 'rw', network: false });
  });

  it('gives the network only to a team that opted in', () => {
    expect(sessionSandbox({ mode: 'all', workspaceAccess: 'ro', network: true }, 'con')).toEqual({ sandboxed: true, workspaceAccess: 'ro', network: true });
  });

  it('non-main leaves only the team lead unsandboxed', () => {
    const settings = { mode: 'non-main', workspaceAccess: 'rw', network: false } as const;
    expect(sessionSandbox(settings, TEAM_LEAD)).toMatchObject({ sandboxed: false });
    expect(sessionSandbox(settings, 'con')).toMatchObject({ sandboxed: true });
  });

  it('mode off runs the team unsandboxed, saying why', () => {
    expect(sessionSandbox({ mode: 'off', workspaceAccess: 'rw', network: true }, 'con')).toEqual({ sandboxed: false, why: "the team's sandbox mode is off" });
  });
});
