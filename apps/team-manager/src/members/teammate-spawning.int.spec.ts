import { randomUUID } from 'node:crypto';
import {
  announceTeammateCompletion,
  completeTeamShutdown,
  createTeam,
  forceTeamShutdown,
  getTeammateInjection,
  listTeammateAnnouncements,
  listMessages,
  listTeammates,
  openInbox,
  reportTeammateIdle,
  requestTeamShutdown,
  respondTeamShutdown,
  spawnTeammate,
  TEAMMATE_SESSION_KEY,
  type RequestDefinition,
  type RosterMember,
} from '@headspace/contracts';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamManager, type TeamManagerHarness } from '../testing/team-manager-harness';

/**
 * Seed 004 Feature 5 on our stack: `spawnSubagentDirect()` → the `spawn-teammate` command, which
 * registers the teammate in the team aggregate and answers with its spawn spec (session key
 * `agent:{agentId}:teammate:{uuid}`, lane `teammate`, mode `session`, model, agent type, sandbox,
 * depth, initial prompt); the orchestrator runs the session from that spec. "Team config" is the
 * team stream plus the `team_roster` projection; `runSubagentAnnounceFlow()` → the
 * `announce-teammate-completion` command (`teammate.announced`, addressed to the lead).
 */
let tm: TeamManagerHarness;
let seq = 0;
const teamName = (base: string) => `${base}-${++seq}`;

beforeAll(async () => {
  tm = await startTeamManager('teammates');
});
afterAll(async () => {
  await tm?.close();
});

const totalEvents = async () => Number((await tm.db.pool.query(`SELECT count(*) FROM team_manager.events WHERE stream_id LIKE 'team-%'`)).rows[0].count);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The roster once `ready` holds (the projection lags the stream: wait, never sleep). */
const rosterWhen = (team: string, ready: (members: RosterMember[]) => boolean) =>
  waitFor(
    async () => {
      const result = await tm.send(listTeammates, { team }).catch(() => undefined);
      return result && ready(result.members) ? result.members : undefined;
    },
    { message: `roster of ${team}` },
  );
const memberWhen = async (team: string, name: string) => (await rosterWhen(team, (ms) => ms.some((m) => m.name === name))).find((m) => m.name === name) as RosterMember;

async function activeTeam(base: string, extra: Partial<Parameters<typeof tm.send<typeof createTeam>>[1]> = {}) {
  const name = teamName(base);
  await tm.send(createTeam, { name, leadAgentType: 'architect', ...extra });
  return name;
}

describe('Feature 5: Teammate Spawning', () => {
  it('Teammate spawns via spawnSubagentDirect', async () => {
    const team = await activeTeam('research-team');
    const spec = await tm.send(spawnTeammate, { team, name: 'researcher', agentId: 'default', task: 'Survey the login flow' });
    expect(spec).toMatchObject({ team, name: 'researcher', agentId: 'default', lane: 'teammate', mode: 'session', depth: 1, parent: 'team-lead' });
    expect(spec.sessionKey).toMatch(/^agent:default:teammate:/);
    expect(await memberWhen(team, 'researcher')).toMatchObject({ role: 'teammate', sessionKey: spec.sessionKey, status: 'active' });
    const injection = await tm.send(getTeammateInjection, { team, member: 'researcher' });
    expect(injection.team.name).toBe(team);
  });

  it('Teammate session uses teammate lane', async () => {
    const team = await activeTeam('lane');
    const spec = await tm.send(spawnTeammate, { team, name: 'worker', task: 'work' });
    expect(spec.lane).toBe('teammate');
    expect((await memberWhen(team, 'worker')).lane).toBe('teammate');
  });

  it('Teammate session key format is correct', async () => {
    const team = await activeTeam('keys');
    const a = await tm.send(spawnTeammate, { team, name: 'a', task: 'work' });
    const b = await tm.send(spawnTeammate, { team, name: 'b', agentId: 'coder', task: 'work' });
    for (const spec of [a, b]) expect(spec.sessionKey).toMatch(TEAMMATE_SESSION_KEY);
    const [, agentId, lane, uuid] = b.sessionKey.split(':');
    expect({ agentId, lane }).toEqual({ agentId: 'coder', lane: 'teammate' });
    expect(uuid).toMatch(UUID);
    expect(a.sessionKey).toMatch(new RegExp(`^agent:default:teammate:${UUID.source.slice(1, -1)}$`));
    expect(a.sessionKey).not.toBe(b.sessionKey);
  });

  it('Teammate inherits sandbox settings', async () => {
    const team = await activeTeam('sandboxed', { sandbox: { mode: 'all', workspaceAccess: 'ro', network: false } });
    const inherited = await tm.send(spawnTeammate, { team, name: 'plain', task: 'work' });
    expect(inherited.sandbox).toEqual({ mode: 'all', workspaceAccess: 'ro', network: false });
    const overridden = await tm.send(spawnTeammate, { team, name: 'online', task: 'work', sandbox: { network: true } });
    expect(overridden.sandbox).toEqual({ mode: 'all', workspaceAccess: 'ro', network: true });
    // A sub-agent inherits from its parent teammate, not from the team.
    const sub = await tm.send(spawnTeammate, { team, name: 'online-sub', task: 'work', parent: 'online' });
    expect(sub.sandbox).toEqual(overridden.sandbox);
    expect((await memberWhen(team, 'plain')).sandbox).toEqual(inherited.sandbox);
  });

  it('Teammate registered in team config', async () => {
    const team = await activeTeam('registry');
    const spec = await tm.send(spawnTeammate, { team, name: 'analyst', agentType: 'data-analyst', task: 'crunch numbers' });
    const members = await rosterWhen(team, (ms) => ms.length === 2);
    expect(members.map((m) => [m.name, m.role])).toEqual([
      ['team-lead', 'lead'],
      ['analyst', 'teammate'],
    ]);
    expect(members[1]).toMatchObject({ memberId: spec.memberId, sessionKey: spec.sessionKey, agentType: 'data-analyst', status: 'active', depth: 1, task: 'crunch numbers' });
  });

  it('Teammate receives initial task prompt', async () => {
    const team = await activeTeam('prompted');
    const spec = await tm.send(spawnTeammate, { team, name: 'tester', agentType: 'qa', task: 'Write e2e tests for checkout' });
    expect(spec.task).toBe('Write e2e tests for checkout');
    expect(spec.initialPrompt).toContain('Write e2e tests for checkout');
    expect(spec.initialPrompt).toContain(`"tester", a qa teammate in team "${team}"`);
    expect(spec.initialPrompt).toContain('team-lead');
  });

  it('Teammate spawn with model override', async () => {
    const team = await activeTeam('models', { defaultModel: 'claude-sonnet-4-5' });
    const byDefault = await tm.send(spawnTeammate, { team, name: 'default-model', task: 'work' });
    const overridden = await tm.send(spawnTeammate, { team, name: 'big-model', model: 'claude-opus-4-1', task: 'work' });
    expect(byDefault.model).toBe('claude-sonnet-4-5');
    expect(overridden.model).toBe('claude-opus-4-1');
    expect((await memberWhen(team, 'big-model')).model).toBe('claude-opus-4-1');
  });

  it('Teammate spawn with custom agent type', async () => {
    const team = await activeTeam('typed');
    const spec = await tm.send(spawnTeammate, { team, name: 'reviewer', agentType: 'code-reviewer', task: 'review' });
    expect(spec.agentType).toBe('code-reviewer');
    expect((await tm.send(spawnTeammate, { team, name: 'generic', task: 'work' })).agentType).toBe('general-purpose');
    expect((await memberWhen(team, 'reviewer')).agentType).toBe('code-reviewer');
  });

  it('Teammate spawn fails with invalid team', async () => {
    const before = await totalEvents();
    expect(await tm.sendError(spawnTeammate, { team: 'no-such-team', name: 'x', task: 'work' })).toMatchObject({ code: 'TEAM.NOT_FOUND', field: 'team' });
    expect(await tm.sendError(spawnTeammate, { team: 'Bad Team!', name: 'x', task: 'work' })).toMatchObject({ code: 'CONTRACTS.VALIDATION_FAILED', field: 'team' });
    expect(await totalEvents()).toBe(before);
    const team = await activeTeam('gone');
    await tm.send(requestTeamShutdown, { team });
    const count = await totalEvents();
    expect(await tm.sendError(spawnTeammate, { team, name: 'late', task: 'work' })).toMatchObject({ code: 'TEAM.NOT_ACTIVE', field: 'team' });
    expect(await totalEvents()).toBe(count);
  });

  it('Teammate depth tracking is correct', async () => {
    const team = await activeTeam('depth');
    expect((await tm.send(spawnTeammate, { team, name: 'child', task: 'work' })).depth).toBe(1);
    expect((await tm.send(spawnTeammate, { team, name: 'grandchild', task: 'work', parent: 'child' })).depth).toBe(2);
    const members = await rosterWhen(team, (ms) => ms.length === 3);
    expect(members.map((m) => [m.name, m.depth, m.parent])).toEqual([
      ['team-lead', 0, null],
      ['child', 1, 'team-lead'],
      ['grandchild', 2, 'child'],
    ]);
  });

  it('Teammate can spawn sub-subagents', async () => {
    const team = await activeTeam('nested');
    await tm.send(spawnTeammate, { team, name: 'l1', task: 'plan' });
    await tm.send(spawnTeammate, { team, name: 'l2', task: 'split', parent: 'l1' });
    const l3 = await tm.send(spawnTeammate, { team, name: 'l3', task: 'do', parent: 'l2', agentType: 'coder' });
    expect(l3).toMatchObject({ depth: 3, maxDepth: 3, parent: 'l2', lane: 'teammate' });
    expect(await memberWhen(team, 'l3')).toMatchObject({ depth: 3, parent: 'l2', status: 'active' });
  });

  it('Teammate subagent depth limits enforced', async () => {
    // The default limit (TEAMMATE_MAX_DEPTH, default 3) …
    const team = await activeTeam('limited');
    await tm.send(spawnTeammate, { team, name: 'd1', task: 'work' });
    await tm.send(spawnTeammate, { team, name: 'd2', task: 'work', parent: 'd1' });
    await tm.send(spawnTeammate, { team, name: 'd3', task: 'work', parent: 'd2' });
    let before = await totalEvents();
    expect(await tm.sendError(spawnTeammate, { team, name: 'd4', task: 'work', parent: 'd3' })).toMatchObject({
      code: 'TEAMMATE.DEPTH_LIMIT',
      field: 'parent',
      details: { depth: 4, maxDepth: 3 },
    });
    expect(await totalEvents()).toBe(before);
    // … and a team's own limit.
    const flat = await activeTeam('flat', { maxSpawnDepth: 1 });
    const spec = await tm.send(spawnTeammate, { team: flat, name: 'only', task: 'work' });
    expect(spec.maxDepth).toBe(1);
    before = await totalEvents();
    expect(await tm.sendError(spawnTeammate, { team: flat, name: 'sub', task: 'work', parent: 'only' })).toMatchObject({ code: 'TEAMMATE.DEPTH_LIMIT' });
    expect(await totalEvents()).toBe(before);
  });

  it('Teammate session persists after spawn', async () => {
    const team = await activeTeam('persist');
    const commandId = randomUUID();
    const spec = await tm.send(spawnTeammate, { team, name: 'keeper', task: 'work' }, { commandId });
    expect(spec.mode).toBe('session');
    const count = await totalEvents();
    // A retried spawn returns the same session, not a second one …
    expect(await tm.send(spawnTeammate, { team, name: 'keeper', task: 'work' }, { commandId })).toEqual(spec);
    expect(await totalEvents()).toBe(count);
    // … a new spawn of the same name is refused while it lives, and it stays registered after its turn ends.
    expect(await tm.sendError(spawnTeammate, { team, name: 'keeper', task: 'again' })).toMatchObject({ code: 'TEAMMATE.ALREADY_EXISTS', field: 'name' });
    await tm.send(reportTeammateIdle, { team, member: 'keeper' });
    await tm.send(spawnTeammate, { team, name: 'other', task: 'work' });
    const members = await rosterWhen(team, (ms) => ms.length === 3);
    expect(members.find((m) => m.name === 'keeper')).toMatchObject({ sessionKey: spec.sessionKey, status: 'idle' });
  });

  it('Teammate mailbox inbox created', async () => {
    const team = await activeTeam('mailbox');
    const spec = await tm.send(spawnTeammate, { team, name: 'reader', task: 'read mail' });
    expect(spec.inbox).toEqual({ team, memberId: 'reader' });
    // The spawn opened it: opening again is a no-op, and the (empty) inbox can be listed.
    expect(await tm.send(openInbox, { team, memberId: 'reader', role: 'member' })).toMatchObject({ opened: false });
    expect((await tm.send(listMessages, { team, memberId: 'reader' })).messages).toEqual([]);
  });

  it('Teammate receives team state injection', async () => {
    const team = await activeTeam('injected', { description: 'Fix the checkout bug' });
    await tm.send(spawnTeammate, { team, name: 'first', agentType: 'researcher', task: 'find it' });
    await tm.send(spawnTeammate, { team, name: 'second', agentType: 'coder', task: 'fix it' });
    await rosterWhen(team, (ms) => ms.length === 3);
    const injection = await tm.send(getTeammateInjection, { team, member: 'second' });
    expect(injection.team).toEqual({ name: team, description: 'Fix the checkout bug', status: 'active' });
    expect(injection.lead).toEqual({ name: 'team-lead', agentType: 'architect' });
    expect(injection.you).toMatchObject({ name: 'second', agentType: 'coder', task: 'fix it', depth: 1 });
    expect(injection.members.map((m) => m.name)).toEqual(['team-lead', 'first', 'second']);
    expect(injection.injection).toContain(`<team-state team="${team}" status="active">`);
    expect(injection.injection).toContain('- first (teammate, researcher, active)');
    expect(injection.injection).toContain('fix it');
    expect(await tm.sendError(getTeammateInjection, { team, member: 'nobody' })).toMatchObject({ code: 'TEAMMATE.NOT_FOUND', field: 'member' });
  });

  it('Teammate announce flow on completion', async () => {
    const team = await activeTeam('announcing');
    await tm.send(spawnTeammate, { team, name: 'finisher', task: 'work' });
    const announced = await tm.send(announceTeammateCompletion, { team, member: 'finisher', summary: 'Root cause found in session refresh', result: 'patch at src/auth.ts' });
    expect(announced.to).toBe('team-lead');
    const { announcements } = await waitFor(async () => {
      const list = await tm.send(listTeammateAnnouncements, { team, to: 'team-lead' });
      return list.announcements.length ? list : undefined;
    });
    expect(announcements).toEqual([
      expect.objectContaining({ announcementId: announced.announcementId, from: 'finisher', to: 'team-lead', outcome: 'completed', summary: 'Root cause found in session refresh', result: 'patch at src/auth.ts' }),
    ]);
    expect(await tm.sendError(announceTeammateCompletion, { team, member: 'ghost', summary: 'x' })).toMatchObject({ code: 'TEAMMATE.NOT_FOUND', field: 'member' });
  });

  it('Teammate session cleanup on shutdown', async () => {
    const team = await activeTeam('cleanup');
    for (const name of ['w1', 'w2', 'w3']) await tm.send(spawnTeammate, { team, name, task: 'work' });
    const { requests } = await tm.send(requestTeamShutdown, { team });
    await tm.send(respondTeamShutdown, { team, member: 'w1', requestId: requests[0].requestId, approve: true });
    await tm.send(reportTeammateIdle, { team, member: 'w2' });
    const forced = await tm.send(forceTeamShutdown, { team, reason: 'w3 hangs' });
    expect(forced.unanswered).toEqual(['w3']);
    const members = await rosterWhen(team, (ms) => ms.every((m) => m.status === 'terminated'));
    expect(members).toHaveLength(4);
    expect(await tm.sendError(announceTeammateCompletion, { team, member: 'w3', summary: 'too late' })).toMatchObject({ code: 'TEAMMATE.NOT_ACTIVE' });
  });

  it('Multiple teammates spawn concurrently', async () => {
    const team = await activeTeam('swarm');
    const n = 12;
    const specs = await Promise.all(Array.from({ length: n }, (_, i) => tm.send(spawnTeammate, { team, name: `worker-${i}`, task: `part ${i}` })));
    expect(new Set(specs.map((s) => s.sessionKey)).size).toBe(n);
    expect(specs.map((s) => s.streamVersion).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: n }, (_, i) => String(i + 2)));
    const members = await rosterWhen(team, (ms) => ms.length === n + 1);
    expect(new Set(members.filter((m) => m.role === 'teammate').map((m) => m.sessionKey)).size).toBe(n);
  });
});

describe('concurrent spawns across replicas', () => {
  it('N spawns at once on two team-manager instances are all registered with distinct keys', async () => {
    await tm.addInstance();
    const team = await activeTeam('replicas');
    const n = 16;
    const specs = await Promise.all(Array.from({ length: n }, (_, i) => tm.send(spawnTeammate, { team, name: `r-${i}`, task: `part ${i}` })));
    expect(new Set(specs.map((s) => s.sessionKey)).size).toBe(n);
    expect(new Set(specs.map((s) => s.streamVersion)).size).toBe(n);
    const members = await rosterWhen(team, (ms) => ms.length === n + 1);
    expect(members.filter((m) => m.role === 'teammate').map((m) => m.name).sort()).toEqual(specs.map((s) => s.name).sort());
  });
});

describe('bad input on every team and teammate command: a typed error naming the field, nothing appended', () => {
  const long = 'x'.repeat(20_001);
  let team: string;
  beforeAll(async () => {
    team = await activeTeam('bad-input');
    await tm.send(spawnTeammate, { team, name: 'member', task: 'work' });
  });

  const cases: Array<[string, RequestDefinition, () => unknown, string, string]> = [
    ['create-team: missing name', createTeam, () => ({}), 'CONTRACTS.VALIDATION_FAILED', 'name'],
    ['create-team: wrong type', createTeam, () => ({ name: 42 }), 'CONTRACTS.VALIDATION_FAILED', 'name'],
    ['create-team: oversized description', createTeam, () => ({ name: 'big-one', description: long }), 'CONTRACTS.VALIDATION_FAILED', 'description'],
    ['create-team: oversized metadata value', createTeam, () => ({ name: 'big-two', metadata: { k: 'v'.repeat(501) } }), 'CONTRACTS.VALIDATION_FAILED', 'metadata.k'],
    ['create-team: unknown sandbox setting', createTeam, () => ({ name: 'big-three', sandbox: { root: true } }), 'CONTRACTS.VALIDATION_FAILED', 'sandbox'],
    ['spawn-teammate: missing task', spawnTeammate, () => ({ team, name: 'n' }), 'CONTRACTS.VALIDATION_FAILED', 'task'],
    ['spawn-teammate: wrong type', spawnTeammate, () => ({ team, name: 'n', task: 'w', model: 7 }), 'CONTRACTS.VALIDATION_FAILED', 'model'],
    ['spawn-teammate: oversized task', spawnTeammate, () => ({ team, name: 'n', task: long }), 'CONTRACTS.VALIDATION_FAILED', 'task'],
    ['spawn-teammate: unknown parent', spawnTeammate, () => ({ team, name: 'n', task: 'w', parent: 'ghost' }), 'TEAMMATE.NOT_FOUND', 'parent'],
    ['spawn-teammate: unknown team', spawnTeammate, () => ({ team: 'no-team', name: 'n', task: 'w' }), 'TEAM.NOT_FOUND', 'team'],
    ['report-teammate-idle: missing member', reportTeammateIdle, () => ({ team }), 'CONTRACTS.VALIDATION_FAILED', 'member'],
    ['report-teammate-idle: unknown member', reportTeammateIdle, () => ({ team, member: 'ghost' }), 'TEAMMATE.NOT_FOUND', 'member'],
    ['report-teammate-idle: oversized summary', reportTeammateIdle, () => ({ team, member: 'member', summary: long }), 'CONTRACTS.VALIDATION_FAILED', 'summary'],
    ['report-teammate-idle: unknown team', reportTeammateIdle, () => ({ team: 'no-team', member: 'member' }), 'TEAM.NOT_FOUND', 'team'],
    ['announce: missing summary', announceTeammateCompletion, () => ({ team, member: 'member' }), 'CONTRACTS.VALIDATION_FAILED', 'summary'],
    ['announce: wrong type', announceTeammateCompletion, () => ({ team, member: 'member', summary: 's', outcome: 'maybe' }), 'CONTRACTS.VALIDATION_FAILED', 'outcome'],
    ['announce: oversized result', announceTeammateCompletion, () => ({ team, member: 'member', summary: 's', result: long + long }), 'CONTRACTS.VALIDATION_FAILED', 'result'],
    ['announce: unknown team', announceTeammateCompletion, () => ({ team: 'no-team', member: 'member', summary: 's' }), 'TEAM.NOT_FOUND', 'team'],
    ['request-team-shutdown: missing team', requestTeamShutdown, () => ({}), 'CONTRACTS.VALIDATION_FAILED', 'team'],
    ['request-team-shutdown: wrong type', requestTeamShutdown, () => ({ team, timeoutMs: 'soon' }), 'CONTRACTS.VALIDATION_FAILED', 'timeoutMs'],
    ['request-team-shutdown: oversized reason', requestTeamShutdown, () => ({ team, reason: long }), 'CONTRACTS.VALIDATION_FAILED', 'reason'],
    ['request-team-shutdown: unknown team', requestTeamShutdown, () => ({ team: 'no-team' }), 'TEAM.NOT_FOUND', 'team'],
    ['respond-team-shutdown: missing approve', respondTeamShutdown, () => ({ team, member: 'member', requestId: 'r' }), 'CONTRACTS.VALIDATION_FAILED', 'approve'],
    ['respond-team-shutdown: wrong type', respondTeamShutdown, () => ({ team, member: 'member', requestId: 'r', approve: 'yes' }), 'CONTRACTS.VALIDATION_FAILED', 'approve'],
    ['respond-team-shutdown: oversized reason', respondTeamShutdown, () => ({ team, member: 'member', requestId: 'r', approve: false, reason: long }), 'CONTRACTS.VALIDATION_FAILED', 'reason'],
    ['respond-team-shutdown: unknown request', respondTeamShutdown, () => ({ team, member: 'member', requestId: 'r', approve: true }), 'TEAM.UNKNOWN_SHUTDOWN_REQUEST', 'requestId'],
    ['respond-team-shutdown: unknown team', respondTeamShutdown, () => ({ team: 'no-team', member: 'member', requestId: 'r', approve: true }), 'TEAM.NOT_FOUND', 'team'],
    ['complete-team-shutdown: wrong type', completeTeamShutdown, () => ({ team: ['x'] }), 'CONTRACTS.VALIDATION_FAILED', 'team'],
    ['complete-team-shutdown: unknown team', completeTeamShutdown, () => ({ team: 'no-team' }), 'TEAM.NOT_FOUND', 'team'],
    ['force-team-shutdown: missing team', forceTeamShutdown, () => ({ reason: 'x' }), 'CONTRACTS.VALIDATION_FAILED', 'team'],
    ['force-team-shutdown: oversized reason', forceTeamShutdown, () => ({ team, reason: long }), 'CONTRACTS.VALIDATION_FAILED', 'reason'],
    ['force-team-shutdown: unknown team', forceTeamShutdown, () => ({ team: 'no-team' }), 'TEAM.NOT_FOUND', 'team'],
  ];

  it.each(cases)('%s', async (_title, definition, body, code, field) => {
    const before = await totalEvents();
    const error = await tm.sendError(definition, body());
    expect(error).toMatchObject({ code, field });
    expect(await totalEvents()).toBe(before);
  });
});
