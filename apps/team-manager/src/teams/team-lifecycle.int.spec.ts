import { randomUUID } from 'node:crypto';
import {
  completeTeamShutdown,
  createTeam,
  forceTeamShutdown,
  getTeam,
  listTeammates,
  openInbox,
  peekUnread,
  reportTeammateIdle,
  requestTeamShutdown,
  respondTeamShutdown,
  sendMessage,
  spawnTeammate,
  TEAM_LEAD,
  type TeamView,
} from '@headspace/contracts';
import { expectRebuiltEqualsLive, waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShutdownBridge } from '../shutdown-bridge/shutdown-bridge.process';
import { startTeamManager, type TeamManagerHarness } from '../testing/team-manager-harness';
import { TeamRosterProjection } from './roster/team-roster.projection';


/**
 * Seed 004 Feature 1 on our stack: `~/.openclaw/teams/{team}/config.json` → the team stream
 * (`team-<name>`, decisions) and the `team_roster_teams` projection (the `get-team` query). The
 * shutdown_request / shutdown_response protocol is recorded in the team aggregate with a request_id
 * per member (`request-team-shutdown`, `respond-team-shutdown`); "the lead receives the approval"
 * = the answer recorded against its request and visible to the lead through `get-team`.
 */
let tm: TeamManagerHarness;
let seq = 0;
const teamName = (base: string) => `${base}-${++seq}`;

beforeAll(async () => {
  // The shutdown-timeout sweeper looks for overdue shutdowns every 50 ms in this spec.
  tm = await startTeamManager('team-lifecycle', { TEAM_SHUTDOWN_SWEEP_MS: '50' });
});
afterAll(async () => {
  await tm?.close();
});

const eventCount = async (team: string) =>
  Number((await tm.db.pool.query(`SELECT count(*) FROM team_manager.events WHERE stream_id = $1`, [`team-${team}`])).rows[0].count);

/** The team as the roster projection shows it, once `ready` holds (projections lag: wait, never sleep). */
const teamWhen = (name: string, ready: (t: TeamView) => boolean) =>
  waitFor(
    async () => {
      const team = await tm.send(getTeam, { name }).catch(() => undefined);
      return team && ready(team) ? team : undefined;
    },
    { message: `team ${name} in the roster` },
  );

const membersOf = async (team: string) => (await tm.send(listTeammates, { team })).members;

async function teamWithMembers(base: string, members: string[]) {
  const name = teamName(base);
  await tm.send(createTeam, { name });
  for (const member of members) await tm.send(spawnTeammate, { team: name, name: member, task: `work of ${member}` });
  return name;
}

describe('Feature 1: Team Lifecycle', () => {
  it('Create a new team successfully', async () => {
    const name = teamName('alpha');
    const created = await tm.send(createTeam, { name });
    expect(created).toMatchObject({ name, streamVersion: '1' });
    const team = await teamWhen(name, () => true);
    expect(team).toMatchObject({ teamId: created.teamId, name, status: 'active', leadAgentType: 'general-purpose', shutdown: null });
    expect(await membersOf(name)).toEqual([expect.objectContaining({ name: 'team-lead', role: 'lead', status: 'active', depth: 0 })]);
  });

  it('Create team with custom agent type for team lead', async () => {
    const name = teamName('custom-lead');
    await tm.send(createTeam, { name, leadAgentType: 'architect' });
    const team = await teamWhen(name, () => true);
    expect(team.leadAgentType).toBe('architect');
    expect((await membersOf(name))[0]).toMatchObject({ name: 'team-lead', agentType: 'architect' });
  });

  it('Create team with descriptive metadata', async () => {
    const name = teamName('described');
    await tm.send(createTeam, {
      name,
      description: 'Researches the flaky login bug',
      metadata: { project: 'auth-service', ticket: 'HS-42' },
      defaultModel: 'claude-sonnet-4-5',
      sandbox: { mode: 'all' },
    });
    const team = await teamWhen(name, () => true);
    expect(team).toMatchObject({
      description: 'Researches the flaky login bug',
      metadata: { project: 'auth-service', ticket: 'HS-42' },
      defaultModel: 'claude-sonnet-4-5',
      sandbox: { mode: 'all', workspaceAccess: 'rw', network: false },
    });
  });

  it('Attempt to create team with invalid name', async () => {
    for (const bad of ['Not A Valid Name!', '', '-leading-dash', 'x'.repeat(65), 'UPPER']) {
      const error = await tm.sendError(createTeam, { name: bad });
      expect(error).toMatchObject({ code: 'CONTRACTS.VALIDATION_FAILED', field: 'name' });
      expect(error.message).toMatch(/name/);
    }
    const { rows } = await tm.db.pool.query(`SELECT count(*)::int AS n FROM team_manager.streams WHERE stream_id IN ('team-UPPER', 'team--leading-dash', 'team-')`);
    expect(rows[0].n).toBe(0);
  });

  it('Attempt to create duplicate team', async () => {
    const name = teamName('dup');
    await tm.send(createTeam, { name });
    const error = await tm.sendError(createTeam, { name, leadAgentType: 'other' });
    expect(error).toMatchObject({ code: 'TEAM.ALREADY_EXISTS', field: 'name' });
    expect(await eventCount(name)).toBe(1);
  });

  it('Graceful team shutdown with no active members', async () => {
    const name = await teamWithMembers('quiet', []);
    const result = await tm.send(requestTeamShutdown, { team: name });
    expect(result).toMatchObject({ status: 'shutdown', requests: [] });
    const team = await teamWhen(name, (t) => t.status === 'shutdown');
    expect(team.shutdown).toMatchObject({ outcome: 'completed', forced: false, timedOut: false, unanswered: [] });
    expect((await membersOf(name))[0]).toMatchObject({ name: 'team-lead', status: 'terminated' });
  });

  it('Graceful shutdown requests member approval', async () => {
    const name = await teamWithMembers('asks', ['researcher-1', 'researcher-2']);
    const result = await tm.send(requestTeamShutdown, { team: name, reason: 'goal reached' });
    expect(result.status).toBe('shutting-down');
    expect(result.requests.map((r) => r.member)).toEqual(['researcher-1', 'researcher-2']);
    expect(new Set(result.requests.map((r) => r.requestId)).size).toBe(2);
    const team = await teamWhen(name, (t) => t.status === 'shutting-down');
    expect(team.shutdown).toMatchObject({
      shutdownId: result.shutdownId,
      outcome: 'pending',
      requestedBy: 'team-lead',
      requests: result.requests.map((r) => ({ ...r, answer: 'pending', reason: null, implicit: false })),
    });
    // The lead waits: its members are still live and a second request is refused while this one runs.
    expect((await membersOf(name)).filter((m) => m.status === 'active')).toHaveLength(3);
    expect(await tm.sendError(requestTeamShutdown, { team: name })).toMatchObject({ code: 'TEAM.NOT_ACTIVE', field: 'team' });
  });

  it('Member approves shutdown request', async () => {
    const name = await teamWithMembers('collaborative-team', ['researcher-1']);
    const { requests } = await tm.send(requestTeamShutdown, { team: name });
    const answer = await tm.send(respondTeamShutdown, { team: name, member: 'researcher-1', requestId: requests[0].requestId, approve: true });
    expect(answer.status).toBe('shutdown');
    const team = await teamWhen(name, (t) => t.status === 'shutdown');
    // The lead received the approval confirmation, and the config says shutdown.
    expect(team.shutdown?.requests).toEqual([{ member: 'researcher-1', requestId: requests[0].requestId, answer: 'approved', reason: null, implicit: false }]);
    expect(team.shutdown?.outcome).toBe('completed');
    expect((await membersOf(name)).find((m) => m.name === 'researcher-1')?.status).toBe('terminated');
  });

  it('Member rejects shutdown with reason', async () => {
    const name = await teamWithMembers('rejecting', ['writer']);
    const { requests } = await tm.send(requestTeamShutdown, { team: name });
    const noReason = await tm.sendError(respondTeamShutdown, { team: name, member: 'writer', requestId: requests[0].requestId, approve: false });
    expect(noReason).toMatchObject({ code: 'CONTRACTS.VALIDATION_FAILED', field: 'reason' });
    const answer = await tm.send(respondTeamShutdown, {
      team: name,
      member: 'writer',
      requestId: requests[0].requestId,
      approve: false,
      reason: 'still writing the migration',
    });
    expect(answer.status).toBe('active');
    const team = await teamWhen(name, (t) => t.shutdown?.outcome === 'aborted');
    expect(team.status).toBe('active');
    expect(team.shutdown?.requests[0]).toMatchObject({ member: 'writer', answer: 'rejected', reason: 'still writing the migration' });
    expect((await membersOf(name)).find((m) => m.name === 'writer')?.status).toBe('active');
  });

  it('Team shutdown fails with active members', async () => {
    const name = await teamWithMembers('busy', ['coder']);
    const before = await eventCount(name);
    const error = await tm.sendError(completeTeamShutdown, { team: name });
    expect(error).toMatchObject({ code: 'TEAM.MEMBERS_ACTIVE', field: 'team', details: { members: ['coder'] } });
    expect(await eventCount(name)).toBe(before);
    // Still refused mid-protocol until the member approves; then the cleanup is a no-op on a shut-down team.
    const { requests } = await tm.send(requestTeamShutdown, { team: name });
    expect(await tm.sendError(completeTeamShutdown, { team: name })).toMatchObject({ code: 'TEAM.MEMBERS_ACTIVE' });
    await tm.send(respondTeamShutdown, { team: name, member: 'coder', requestId: requests[0].requestId, approve: true });
    expect((await teamWhen(name, (t) => t.status === 'shutdown')).status).toBe('shutdown');
  });

  it('Team lead handles member going idle during shutdown', async () => {
    const name = await teamWithMembers('idling', ['approver', 'sleeper']);
    const { requests } = await tm.send(requestTeamShutdown, { team: name });
    const byMember = Object.fromEntries(requests.map((r) => [r.member, r.requestId]));
    // One answer of two: the lead keeps waiting.
    expect(await tm.send(respondTeamShutdown, { team: name, member: 'approver', requestId: byMember.approver, approve: true })).toMatchObject({ status: 'shutting-down' });
    const idle = await tm.send(reportTeammateIdle, { team: name, member: 'sleeper', summary: 'nothing left to do' });
    expect(idle).toMatchObject({ countedAsShutdownApproval: true, status: 'terminated' });
    const team = await teamWhen(name, (t) => t.status === 'shutdown');
    expect(team.shutdown?.requests.find((r) => r.member === 'sleeper')).toMatchObject({ answer: 'approved', implicit: true });
    // Its late explicit answer is refused, not double-counted.
    const late = await tm.sendError(respondTeamShutdown, { team: name, member: 'sleeper', requestId: byMember.sleeper, approve: true });
    expect(late.code).toBe('TEAM.UNKNOWN_SHUTDOWN_REQUEST');
  });
});

describe('Idle notifications to the lead during a team shutdown (seed 004 Feature 3 #16)', () => {
  const idleFrom = (team: string, from: string) => tm.send(sendMessage, { team, type: 'idle_notification', from });

  it('an idle notification sent right after the shutdown was accepted is suppressAutoReply, before any member has heard of it', async () => {
    const name = await teamWithMembers('idle-early', ['worker-1', 'worker-2']);
    await tm.send(openInbox, { team: name, memberId: TEAM_LEAD, role: 'lead' });
    // The bridge that delivers the shutdown_requests to the inboxes is held back: the window right after the 202.
    const bridge = tm.apps[0].get(ShutdownBridge).runner;
    await bridge.stop();
    try {
      expect(await tm.send(requestTeamShutdown, { team: name })).toMatchObject({ status: 'shutting-down' });
      expect(await idleFrom(name, 'worker-2')).toMatchObject({ recipients: [TEAM_LEAD], suppressAutoReply: true });
    } finally {
      bridge.start();
    }
    const { messages } = await tm.send(peekUnread, { team: name, memberId: TEAM_LEAD });
    expect(messages).toMatchObject([{ type: 'idle_notification', from: 'worker-2', suppressAutoReply: true }]);
  });

  it('an idle notification after every member approved through its mailbox (the shutdown done) is suppressAutoReply', async () => {
    const name = await teamWithMembers('idle-late', ['worker-1']);
    await tm.send(openInbox, { team: name, memberId: TEAM_LEAD, role: 'lead' });
    const { requests } = await tm.send(requestTeamShutdown, { team: name });
    await waitFor(
      async () => (await tm.send(peekUnread, { team: name, memberId: 'worker-1' })).messages.find((m) => m.type === 'shutdown_request'),
      { message: 'the shutdown_request in the member inbox' },
    );
    await tm.send(sendMessage, { team: name, type: 'shutdown_response', from: 'worker-1', requestId: requests[0].requestId, approve: true });
    await teamWhen(name, (t) => t.status === 'shutdown');
    expect(await idleFrom(name, 'worker-1')).toMatchObject({ suppressAutoReply: true });
  });

  it('an idle notification after a rejected shutdown (the team active again) expects an answer', async () => {
    const name = await teamWithMembers('idle-reject', ['worker-1']);
    await tm.send(openInbox, { team: name, memberId: TEAM_LEAD, role: 'lead' });
    const { requests } = await tm.send(requestTeamShutdown, { team: name });
    await tm.send(respondTeamShutdown, { team: name, member: 'worker-1', requestId: requests[0].requestId, approve: false, reason: 'mid-migration' });
    await teamWhen(name, (t) => t.status === 'active');
    expect(await idleFrom(name, 'worker-1')).toMatchObject({ suppressAutoReply: false });
  });
});

describe('Forced shutdown with a timeout (beyond the seed)', () => {
  it('force-team-shutdown ends the team although a member hangs, recording the unanswered ones', async () => {
    const name = await teamWithMembers('hung', ['fast', 'hung']);
    const { requests } = await tm.send(requestTeamShutdown, { team: name });
    await tm.send(respondTeamShutdown, { team: name, member: 'fast', requestId: requests[0].requestId, approve: true });
    const forced = await tm.send(forceTeamShutdown, { team: name, reason: 'operator cleanup' });
    expect(forced).toMatchObject({ status: 'shutdown', unanswered: ['hung'] });
    const team = await teamWhen(name, (t) => t.status === 'shutdown');
    expect(team.shutdown).toMatchObject({ outcome: 'completed', forced: true, timedOut: false, unanswered: ['hung'] });
    expect((await membersOf(name)).map((m) => m.status)).toEqual(['terminated', 'terminated', 'terminated']);
    expect(await tm.sendError(forceTeamShutdown, { team: name })).toMatchObject({ code: 'TEAM.NOT_ACTIVE' });
  });

  it('a shutdown nobody answers completes by itself after timeoutMs', async () => {
    const name = await teamWithMembers('timeout', ['silent-1', 'silent-2']);
    await tm.send(requestTeamShutdown, { team: name, timeoutMs: 150 });
    const team = await teamWhen(name, (t) => t.status === 'shutdown');
    expect(team.shutdown).toMatchObject({ outcome: 'completed', forced: true, timedOut: true, unanswered: ['silent-1', 'silent-2'] });
    expect((await membersOf(name)).map((m) => m.status)).toEqual(['terminated', 'terminated', 'terminated']);
    // Exactly one timeout was recorded however many sweeps ran.
    const { rows } = await tm.db.pool.query(`SELECT count(*)::int AS n FROM team_manager.events WHERE stream_id = $1 AND type = 'team.shutdown-completed'`, [`team-${name}`]);
    expect(rows[0].n).toBe(1);
  });

  it('a retried shutdown request (same command id) answers as the first did and appends nothing', async () => {
    const name = await teamWithMembers('retry', ['m1']);
    const commandId = randomUUID();
    const first = await tm.send(requestTeamShutdown, { team: name }, { commandId });
    const count = await eventCount(name);
    const again = await tm.send(requestTeamShutdown, { team: name }, { commandId });
    expect(again).toEqual(first);
    expect(await eventCount(name)).toBe(count);
  });
});

describe('team roster projection', () => {
  it('rebuilds from position 0 to the same rows', async () => {
    const live = await expectRebuiltEqualsLive(tm.apps[0].get(TeamRosterProjection), tm.db.pool);
    expect(live.team_roster_teams.length).toBeGreaterThan(5);
  });
});
