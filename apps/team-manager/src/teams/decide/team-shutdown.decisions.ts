import { ErrorCodes, HeadspaceError, TEAM_LEAD, type EventData, type teammateTerminated } from '@headspace/contracts';
import { requireActiveTeam, requireMember, requireNotShutDown, requireTeam } from './team.guards';
import { evolveTeam, live, type ShutdownState, type Team, type TeamEvent, type TeamState } from './team.state';

export interface RequestShutdown {
  type: 'request-shutdown';
  team: string;
  shutdownId: string;
  /** Deterministic ids: a retried command asks with the same request_ids. */
  requestIdFor: (member: string) => string;
  requestedBy: string;
  reason?: string;
  timeoutMs: number;
  now: string;
}

export interface RespondShutdown {
  type: 'respond-shutdown';
  team: string;
  member: string;
  requestId: string;
  approve: boolean;
  reason?: string;
  now: string;
}

export interface CompleteShutdown {
  type: 'complete-shutdown';
  team: string;
  now: string;
}

export interface ForceShutdown {
  type: 'force-shutdown';
  team: string;
  reason?: string;
  /** Set by the timeout sweeper: only this shutdown may be timed out (a later one has its own deadline). */
  timedOutShutdownId?: string;
  now: string;
}

const completed = (now: string, shutdownId?: string): TeamEvent => ({
  type: 'team.shutdown-completed',
  data: { ...(shutdownId === undefined ? {} : { shutdownId }), forced: false, timedOut: false, unanswered: [], completedAt: now },
});

export function terminations(team: Team, reason: EventData<typeof teammateTerminated>['reason'], now: string): TeamEvent[] {
  return Object.values(team.members)
    .filter(live)
    .map((m) => ({ type: 'teammate.terminated', data: { name: m.name, sessionKey: m.sessionKey, reason, terminatedAt: now } }));
}

/**
 * A member's answer and what it completes: once every request is answered, all approved → the
 * shutdown completes (the rest terminated), any rejected → it is aborted. The answer events are
 * applied first, so the decision sees the answer it makes.
 */
export function withShutdownOutcome(team: Team, answered: TeamEvent[], now: string): TeamEvent[] {
  const after = answered.reduce(evolveTeam, team) as Team;
  const shutdown = after.shutdown as ShutdownState;
  if (shutdown.requests.some((r) => !r.answer)) return answered;
  const rejections = shutdown.requests.filter((r) => r.answer && !r.answer.approve).map((r) => ({ member: r.member, reason: r.answer?.reason ?? '' }));
  if (rejections.length) return [...answered, { type: 'team.shutdown-aborted', data: { shutdownId: shutdown.shutdownId, rejections, abortedAt: now } }];
  return [...answered, ...terminations(after, 'team-shutdown', now), completed(now, shutdown.shutdownId)];
}

/**
 * An active team asks every live member once (request ids fixed by the command); with nobody to ask
 * it completes at once. A member already idle has nothing in progress and no session to read the
 * request: its approval is implicit at once (as going idle during a shutdown is), so a team whose
 * teammates all finished shuts down without waiting for the timeout.
 */
export function requestShutdown(command: RequestShutdown, state: TeamState): TeamEvent[] {
  const team = requireActiveTeam(state, command.team);
  const requests = Object.values(team.members)
    .filter(live)
    .map((m) => ({ member: m.name, requestId: command.requestIdFor(m.name) }));
  const requested: TeamEvent = {
    type: 'team.shutdown-requested',
    data: {
      shutdownId: command.shutdownId,
      requestedBy: command.requestedBy,
      ...(command.reason === undefined ? {} : { reason: command.reason }),
      requests,
      requestedAt: command.now,
      deadline: new Date(Date.parse(command.now) + command.timeoutMs).toISOString(),
    },
  };
  if (requests.length === 0) return [requested, completed(command.now, command.shutdownId)];
  const idle = Object.values(team.members).filter((m) => m.status === 'idle');
  if (idle.length === 0) return [requested];
  const asked = evolveTeam(state, requested) as Team;
  const approvals = idle.flatMap((m): TeamEvent[] => [
    {
      type: 'team.shutdown-responded',
      data: {
        shutdownId: command.shutdownId,
        requestId: command.requestIdFor(m.name),
        member: m.name,
        approve: true,
        reason: 'idle when the shutdown was requested',
        implicit: true,
        to: TEAM_LEAD,
        respondedAt: command.now,
      },
    },
    { type: 'teammate.terminated', data: { name: m.name, sessionKey: m.sessionKey, reason: 'shutdown-approved', terminatedAt: command.now } },
  ]);
  return [requested, ...withShutdownOutcome(asked, approvals, command.now)];
}

/** Only the member a pending request was sent to answers it, once; an approval terminates that member. */
export function respondShutdown(command: RespondShutdown, state: TeamState): TeamEvent[] {
  const team = requireTeam(state, command.team);
  const member = requireMember(team, command.member);
  const request = team.status === 'shutting-down' ? team.shutdown?.requests.find((r) => r.requestId === command.requestId) : undefined;
  if (!team.shutdown || !request) {
    throw new HeadspaceError(ErrorCodes.teamUnknownShutdownRequest, `No pending shutdown_request "${command.requestId}" in team "${team.name}"`, { field: 'requestId' });
  }
  if (request.member !== member.name) {
    throw new HeadspaceError(ErrorCodes.teamUnknownShutdownRequest, `shutdown_request "${command.requestId}" was not sent to "${member.name}"`, { field: 'requestId' });
  }
  if (request.answer) {
    throw new HeadspaceError(ErrorCodes.teamShutdownAlreadyAnswered, `"${member.name}" already answered shutdown_request "${command.requestId}"`, { field: 'requestId' });
  }
  const answered: TeamEvent[] = [
    {
      type: 'team.shutdown-responded',
      data: {
        shutdownId: team.shutdown.shutdownId,
        requestId: request.requestId,
        member: member.name,
        approve: command.approve,
        ...(command.reason === undefined ? {} : { reason: command.reason }),
        implicit: false,
        to: TEAM_LEAD,
        respondedAt: command.now,
      },
    },
  ];
  if (command.approve && live(member)) {
    answered.push({ type: 'teammate.terminated', data: { name: member.name, sessionKey: member.sessionKey, reason: 'shutdown-approved', terminatedAt: command.now } });
  }
  return withShutdownOutcome(team, answered, command.now);
}

/** The lead ends a team that is not shut down yet only once no member is live (closing its pending shutdown, if any). */
export function completeShutdown(command: CompleteShutdown, state: TeamState): TeamEvent[] {
  const team = requireNotShutDown(state, command.team);
  const active = Object.values(team.members).filter(live).map((m) => m.name);
  if (active.length) {
    throw new HeadspaceError(ErrorCodes.teamMembersActive, `Team "${team.name}" still has active members: ${active.join(', ')}`, { field: 'team', details: { members: active } });
  }
  return [completed(command.now, team.shutdown && team.status === 'shutting-down' ? team.shutdown.shutdownId : undefined)];
}

/**
 * Forcing ends a team not shut down yet at once: every live member is terminated and the members
 * that never answered are recorded. A timeout forces only the shutdown it was set for, while pending.
 */
export function forceShutdown(command: ForceShutdown, state: TeamState): TeamEvent[] {
  const team = requireNotShutDown(state, command.team);
  const pending = team.status === 'shutting-down' ? team.shutdown : undefined;
  if (command.timedOutShutdownId !== undefined && pending?.shutdownId !== command.timedOutShutdownId) {
    throw new HeadspaceError(ErrorCodes.teamNotActive, `Shutdown "${command.timedOutShutdownId}" of team "${team.name}" is no longer pending`, { field: 'team' });
  }
  const unanswered = pending
    ? pending.requests.filter((r) => !r.answer && live(team.members[r.member])).map((r) => r.member)
    : Object.values(team.members).filter(live).map((m) => m.name);
  const timedOut = command.timedOutShutdownId !== undefined;
  return [
    ...terminations(team, timedOut ? 'shutdown-timeout' : 'forced', command.now),
    {
      type: 'team.shutdown-completed',
      data: {
        ...(pending ? { shutdownId: pending.shutdownId } : {}),
        forced: true,
        timedOut,
        unanswered,
        ...(command.reason === undefined ? {} : { reason: command.reason }),
        completedAt: command.now,
      },
    },
  ];
}
