import { describe, expect, it } from 'vitest';
import { DeciderSpec } from '@headspace/event-store';
import { DEFAULT_SANDBOX } from '@headspace/contracts';
import { teamDecider, type CreateTeam, type TeamEvent } from './team.decider';

const now = '2026-11-22T10:00:00.000Z';
const create: CreateTeam = {
  type: 'create-team',
  teamId: 't-1',
  name: 'alpha',
  leadAgentType: 'architect',
  metadata: { project: 'demo' },
  now,
};
const created: TeamEvent = { type: 'team.created', data: { teamId: 't-0', name: 'alpha', leadAgentType: 'x', metadata: {}, createdAt: now } };
const spawned = (name: string): TeamEvent => ({
  type: 'teammate.spawned',
  data: {
    memberId: `m-${name}`,
    name,
    agentId: 'default',
    sessionKey: `agent:default:teammate:${name}`,
    lane: 'teammate',
    mode: 'session',
    agentType: 'general-purpose',
    sandbox: DEFAULT_SANDBOX,
    depth: 1,
    maxDepth: 3,
    parent: 'team-lead',
    task: 't',
    initialPrompt: 'p',
    spawnedAt: now,
  },
});
const requested = (...members: string[]): TeamEvent => ({
  type: 'team.shutdown-requested',
  data: { shutdownId: 's-1', requestedBy: 'team-lead', requests: members.map((m) => ({ member: m, requestId: `r-${m}` })), requestedAt: now, deadline: now },
});
const requestShutdown = {
  type: 'request-shutdown' as const,
  team: 'alpha',
  shutdownId: 's-1',
  requestIdFor: (m: string) => `r-${m}`,
  requestedBy: 'team-lead',
  timeoutMs: 0,
  now,
};
const code = (expected: string) => (error: unknown) => (error as { code?: string }).code === expected;
const respond = (member: string, approve: boolean, reason?: string) => ({
  type: 'respond-shutdown' as const,
  team: 'alpha',
  member,
  requestId: `r-${member}`,
  approve,
  ...(reason ? { reason } : {}),
  now,
});

describe('team decider', () => {
  it('Create a new team successfully', () => {
    DeciderSpec.for(teamDecider).given([]).when(create).then([
      {
        type: 'team.created',
        data: { teamId: 't-1', name: 'alpha', leadAgentType: 'architect', metadata: { project: 'demo' }, createdAt: create.now },
      },
    ]);
  });

  it('Attempt to create duplicate team', () => {
    DeciderSpec.for(teamDecider).given([created]).when(create).thenThrows(code('TEAM.ALREADY_EXISTS'));
  });

  it('sandbox settings of a new team are the defaults overridden by the request', () => {
    const [event] = teamDecider.decide({ ...create, sandbox: { mode: 'all' } }, teamDecider.initialState());
    expect(event.data).toMatchObject({ sandbox: { ...DEFAULT_SANDBOX, mode: 'all' } });
  });

  it('Graceful team shutdown with no active members', () => {
    DeciderSpec.for(teamDecider).given([created]).when(requestShutdown).then([
      requested(),
      { type: 'team.shutdown-completed', data: { shutdownId: 's-1', forced: false, timedOut: false, unanswered: [], completedAt: now } },
    ]);
  });

  it('Graceful shutdown requests member approval', () => {
    DeciderSpec.for(teamDecider).given([created, spawned('a'), spawned('b')]).when(requestShutdown).then([requested('a', 'b')]);
  });

  it('a member already idle when the shutdown is requested approves at once, implicitly; the others are still asked', () => {
    const idle: TeamEvent = { type: 'teammate.idle', data: { name: 'a', idleAt: now } };
    const approvedA: TeamEvent[] = [
      { type: 'team.shutdown-responded', data: { shutdownId: 's-1', requestId: 'r-a', member: 'a', approve: true, reason: 'idle when the shutdown was requested', implicit: true, to: 'team-lead', respondedAt: now } },
      { type: 'teammate.terminated', data: { name: 'a', sessionKey: 'agent:default:teammate:a', reason: 'shutdown-approved', terminatedAt: now } },
    ];
    DeciderSpec.for(teamDecider).given([created, spawned('a'), spawned('b'), idle]).when(requestShutdown).then([requested('a', 'b'), ...approvedA]);
    DeciderSpec.for(teamDecider).given([created, spawned('a'), idle]).when(requestShutdown).then([
      requested('a'),
      ...approvedA,
      { type: 'team.shutdown-completed', data: { shutdownId: 's-1', forced: false, timedOut: false, unanswered: [], completedAt: now } },
    ]);
  });

  it('Member approves shutdown request', () => {
    DeciderSpec.for(teamDecider).given([created, spawned('a'), requested('a')]).when(respond('a', true)).then([
      { type: 'team.shutdown-responded', data: { shutdownId: 's-1', requestId: 'r-a', member: 'a', approve: true, implicit: false, to: 'team-lead', respondedAt: now } },
      { type: 'teammate.terminated', data: { name: 'a', sessionKey: 'agent:default:teammate:a', reason: 'shutdown-approved', terminatedAt: now } },
      { type: 'team.shutdown-completed', data: { shutdownId: 's-1', forced: false, timedOut: false, unanswered: [], completedAt: now } },
    ]);
  });

  it('Member rejects shutdown with reason', () => {
    DeciderSpec.for(teamDecider).given([created, spawned('a'), requested('a')]).when(respond('a', false, 'mid-write')).then([
      { type: 'team.shutdown-responded', data: { shutdownId: 's-1', requestId: 'r-a', member: 'a', approve: false, reason: 'mid-write', implicit: false, to: 'team-lead', respondedAt: now } },
      { type: 'team.shutdown-aborted', data: { shutdownId: 's-1', rejections: [{ member: 'a', reason: 'mid-write' }], abortedAt: now } },
    ]);
  });

  it('the lead waits for every answer: one approval of two completes nothing', () => {
    const events = teamDecider.decide(respond('a', true), [created, spawned('a'), spawned('b'), requested('a', 'b')].reduce(teamDecider.evolve, teamDecider.initialState()));
    expect(events.map((e) => e.type)).toEqual(['team.shutdown-responded', 'teammate.terminated']);
  });

  it('Team shutdown fails with active members', () => {
    DeciderSpec.for(teamDecider).given([created, spawned('a')]).when({ type: 'complete-shutdown', team: 'alpha', now }).thenThrows(code('TEAM.MEMBERS_ACTIVE'));
  });

  it('Team lead handles member going idle during shutdown', () => {
    DeciderSpec.for(teamDecider).given([created, spawned('a'), requested('a')]).when({ type: 'report-teammate-idle', team: 'alpha', member: 'a', now }).then([
      { type: 'teammate.idle', data: { name: 'a', idleAt: now } },
      { type: 'team.shutdown-responded', data: { shutdownId: 's-1', requestId: 'r-a', member: 'a', approve: true, reason: 'went idle during shutdown', implicit: true, to: 'team-lead', respondedAt: now } },
      { type: 'teammate.terminated', data: { name: 'a', sessionKey: 'agent:default:teammate:a', reason: 'went-idle-during-shutdown', terminatedAt: now } },
      { type: 'team.shutdown-completed', data: { shutdownId: 's-1', forced: false, timedOut: false, unanswered: [], completedAt: now } },
    ]);
  });

  it('a second answer to the same request_id is refused; an unknown request_id too', () => {
    const approved: TeamEvent = { type: 'team.shutdown-responded', data: { shutdownId: 's-1', requestId: 'r-a', member: 'a', approve: true, implicit: false, to: 'team-lead', respondedAt: now } };
    DeciderSpec.for(teamDecider).given([created, spawned('a'), spawned('b'), requested('a', 'b'), approved]).when(respond('a', false, 'x')).thenThrows(code('TEAM.SHUTDOWN_ALREADY_ANSWERED'));
    DeciderSpec.for(teamDecider).given([created, spawned('a'), requested('a')]).when({ ...respond('a', true), requestId: 'nope' }).thenThrows(code('TEAM.UNKNOWN_SHUTDOWN_REQUEST'));
  });

  it('forced shutdown terminates the members that never answered and records them', () => {
    DeciderSpec.for(teamDecider).given([created, spawned('a'), requested('a')]).when({ type: 'force-shutdown', team: 'alpha', timedOutShutdownId: 's-1', now }).then([
      { type: 'teammate.terminated', data: { name: 'a', sessionKey: 'agent:default:teammate:a', reason: 'shutdown-timeout', terminatedAt: now } },
      { type: 'team.shutdown-completed', data: { shutdownId: 's-1', forced: true, timedOut: true, unanswered: ['a'], completedAt: now } },
    ]);
  });

  it('a timeout of a shutdown that already ended is refused', () => {
    DeciderSpec.for(teamDecider).given([created, spawned('a')]).when({ type: 'force-shutdown', team: 'alpha', timedOutShutdownId: 's-1', now }).thenThrows(code('TEAM.NOT_ACTIVE'));
  });

  it('the lead completes a shutdown once no member is live; a shut-down team takes no second completion', () => {
    const approved: TeamEvent = { type: 'team.shutdown-responded', data: { shutdownId: 's-1', requestId: 'r-a', member: 'a', approve: true, implicit: false, to: 'team-lead', respondedAt: now } };
    const terminated: TeamEvent = { type: 'teammate.terminated', data: { name: 'a', sessionKey: 'agent:default:teammate:a', reason: 'shutdown-approved', terminatedAt: now } };
    const completed: TeamEvent = { type: 'team.shutdown-completed', data: { shutdownId: 's-1', forced: false, timedOut: false, unanswered: [], completedAt: now } };
    DeciderSpec.for(teamDecider).given([created, spawned('a'), requested('a'), approved, terminated]).when({ type: 'complete-shutdown', team: 'alpha', now }).then([completed]);
    DeciderSpec.for(teamDecider)
      .given([created])
      .when({ type: 'complete-shutdown', team: 'alpha', now })
      .then([{ type: 'team.shutdown-completed', data: { forced: false, timedOut: false, unanswered: [], completedAt: now } }]);
    DeciderSpec.for(teamDecider).given([created, completed]).when({ type: 'complete-shutdown', team: 'alpha', now }).thenThrows(code('TEAM.NOT_ACTIVE'));
    DeciderSpec.for(teamDecider).given([created, completed]).when({ type: 'force-shutdown', team: 'alpha', now }).thenThrows(code('TEAM.NOT_ACTIVE'));
  });

  it('the operator forcing a shutdown with none pending terminates every live member and records them all as unanswered', () => {
    DeciderSpec.for(teamDecider).given([created, spawned('a'), spawned('b')]).when({ type: 'force-shutdown', team: 'alpha', reason: 'stop now', now }).then([
      { type: 'teammate.terminated', data: { name: 'a', sessionKey: 'agent:default:teammate:a', reason: 'forced', terminatedAt: now } },
      { type: 'teammate.terminated', data: { name: 'b', sessionKey: 'agent:default:teammate:b', reason: 'forced', terminatedAt: now } },
      { type: 'team.shutdown-completed', data: { forced: true, timedOut: false, unanswered: ['a', 'b'], reason: 'stop now', completedAt: now } },
    ]);
  });

  it('a member going idle outside a shutdown is only idle; a terminated member can neither go idle nor announce', () => {
    DeciderSpec.for(teamDecider)
      .given([created, spawned('a')])
      .when({ type: 'report-teammate-idle', team: 'alpha', member: 'a', summary: 'waiting for review', now })
      .then([{ type: 'teammate.idle', data: { name: 'a', summary: 'waiting for review', idleAt: now } }]);
    const terminated: TeamEvent = { type: 'teammate.terminated', data: { name: 'a', sessionKey: 'agent:default:teammate:a', reason: 'forced', terminatedAt: now } };
    DeciderSpec.for(teamDecider).given([created, spawned('a'), terminated]).when({ type: 'report-teammate-idle', team: 'alpha', member: 'a', now }).thenThrows(code('TEAMMATE.NOT_ACTIVE'));
    DeciderSpec.for(teamDecider)
      .given([created, spawned('a'), terminated])
      .when({ type: 'announce-teammate-completion', team: 'alpha', member: 'a', announcementId: 'an-1', outcome: 'completed', summary: 'done', now })
      .thenThrows(code('TEAMMATE.NOT_ACTIVE'));
    DeciderSpec.for(teamDecider).given([created]).when({ type: 'report-teammate-idle', team: 'alpha', member: 'ghost', now }).thenThrows(code('TEAMMATE.NOT_FOUND'));
  });

  it('shutdown of an unknown team is TEAM.NOT_FOUND', () => {
    DeciderSpec.for(teamDecider).given([]).when(requestShutdown).thenThrows(code('TEAM.NOT_FOUND'));
  });
});
