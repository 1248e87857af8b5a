import { DEFAULT_SANDBOX, TEAM_LEAD, type SandboxSettings } from '@headspace/contracts';

/** What a session's processes run under: nothing (unsandboxed) or a sandbox with these mounts and network. */
export type SessionSandboxDecision = { sandboxed: false; why: string } | { sandboxed: true; workspaceAccess: SandboxSettings['workspaceAccess']; network: boolean };

/**
 * The team's sandbox settings applied to one session. `all`: every session; `non-main`: every
 * session but the team lead's (the operator's own "main" agent); `off`: none. A team the
 * team-manager does not know (or could not be asked about) gets the defaults: sandboxed, no network.
 */
export function sessionSandbox(settings: SandboxSettings | undefined, persona: string): SessionSandboxDecision {
  const s = settings ?? DEFAULT_SANDBOX;
  if (s.mode === 'off') return { sandboxed: false, why: "the team's sandbox mode is off" };
  if (s.mode === 'non-main' && persona === TEAM_LEAD) return { sandboxed: false, why: "the team's sandbox mode is non-main and this is the team lead" };
  return { sandboxed: true, workspaceAccess: s.workspaceAccess, network: s.network };
}
