import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { live, type MemberState, type Team, type TeamState } from './team.state';

export function requireTeam(state: TeamState, team: string): Team {
  if (!state.exists) throw new HeadspaceError(ErrorCodes.teamNotFound, `Team "${team}" does not exist`, { field: 'team' });
  return state;
}

export function requireActiveTeam(state: TeamState, team: string): Team {
  const t = requireTeam(state, team);
  if (t.status !== 'active') throw new HeadspaceError(ErrorCodes.teamNotActive, `Team "${team}" is ${t.status}`, { field: 'team', details: { status: t.status } });
  return t;
}

export function requireMember(team: Team, member: string, field = 'member'): MemberState {
  const m = team.members[member];
  if (!m) throw new HeadspaceError(ErrorCodes.teammateNotFound, `Team "${team.name}" has no teammate "${member}"`, { field });
  return m;
}

export function requireLive(member: MemberState, field: string): MemberState {
  if (!live(member)) throw new HeadspaceError(ErrorCodes.teammateNotActive, `Teammate "${member.name}" has terminated`, { field });
  return member;
}

/** A team not shut down yet: the shutdown ends a team for good. */
export function requireNotShutDown(state: TeamState, team: string): Team {
  const t = requireTeam(state, team);
  if (t.status === 'shutdown') throw new HeadspaceError(ErrorCodes.teamNotActive, `Team "${t.name}" is already shut down`, { field: 'team' });
  return t;
}
