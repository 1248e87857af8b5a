import { randomUUID } from 'node:crypto';
import { DEFAULT_SANDBOX, TEAM_LEAD, teamStreamId } from '@headspace/contracts';
import type { NewEvent } from '@headspace/event-store';
import { inStream } from '@headspace/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { teamManagerProjectionSpec } from '../../testing/projection-store';
import { TeamRosterProjection } from './team-roster.projection';

let given: Awaited<ReturnType<typeof teamManagerProjectionSpec<TeamRosterProjection>>>;
beforeAll(async () => (given = await teamManagerProjectionSpec('teamroster', (store) => new TeamRosterProjection(store))));
afterAll(() => given?.db.drop());
const spec = () => given.spec;

const newTeam = () => `t${randomUUID().slice(0, 8)}`;
const CREATED_AT = '2025-01-01T10:00:00.000Z';
const DEADLINE = '2025-01-01T10:10:00.000Z';
const READ_ONLY = { mode: 'all', workspaceAccess: 'ro', network: false } as const;

const created = (team: string, extra: Record<string, unknown> = {}): NewEvent => ({
  type: 'team.created',
  data: { teamId: `id-${team}`, name: team, leadAgentType: 'lead-agent', metadata: { project: 'parser' }, createdAt: CREATED_AT, ...extra },
});
// Session keys are unique across teams (the roster's UNIQUE column): each spec has a team of its own.
const sessionKey = (team: string, name: string) => `agent:default:teammate:${team}-${name}`;
const spawned = (team: string, name: string, extra: Record<string, unknown> = {}): NewEvent => ({
  type: 'teammate.spawned',
  data: {
    memberId: `m-${name}`,
    name,
    agentId: 'default',
    sessionKey: sessionKey(team, name),
    lane: 'teammate',
    mode: 'session',
    agentType: 'general-purpose',
    sandbox: DEFAULT_SANDBOX,
    depth: 1,
    maxDepth: 3,
    parent: TEAM_LEAD,
    task: `build ${name}'s part`,
    initialPrompt: 'go',
    spawnedAt: '2025-01-01T10:01:00.000Z',
    ...extra,
  },
});
const idle = (name: string): NewEvent => ({ type: 'teammate.idle', data: { name, idleAt: '2025-01-01T10:02:00.000Z' } });
const terminated = (team: string, name: string): NewEvent => ({
  type: 'teammate.terminated',
  data: { name, sessionKey: sessionKey(team, name), reason: 'shutdown-approved', terminatedAt: '2025-01-01T10:03:00.000Z' },
});
const announced = (team: string, name: string, announcementId: string): NewEvent => ({
  type: 'teammate.announced',
  data: { announcementId, name, sessionKey: sessionKey(team, name), to: TEAM_LEAD, outcome: 'completed', summary: 'parser done', result: 'all tests pass', announcedAt: '2025-01-01T10:04:00.000Z' },
});
const shutdownRequested = (members: string[]): NewEvent => ({
  type: 'team.shutdown-requested',
  data: { shutdownId: 'sd-1', requestedBy: TEAM_LEAD, requests: members.map((member) => ({ member, requestId: `req-${member}` })), requestedAt: '2025-01-01T10:05:00.000Z', deadline: DEADLINE },
});
const responded = (member: string, approve: boolean, reason?: string): NewEvent => ({
  type: 'team.shutdown-responded',
  data: { shutdownId: 'sd-1', requestId: `req-${member}`, member, approve, ...(reason ? { reason } : {}), implicit: false, to: TEAM_LEAD, respondedAt: '2025-01-01T10:06:00.000Z' },
});
const aborted = (member: string, reason: string): NewEvent => ({
  type: 'team.shutdown-aborted',
  data: { shutdownId: 'sd-1', rejections: [{ member, reason }], abortedAt: '2025-01-01T10:07:00.000Z' },
});
const completed = (extra: Record<string, unknown>): NewEvent => ({
  type: 'team.shutdown-completed',
  data: { forced: false, timedOut: false, unanswered: [], completedAt: '2025-01-01T10:08:00.000Z', ...extra },
});

const teamRow = (team: string) => ({ sql: 'SELECT * FROM team_manager.team_roster_teams WHERE team_name = $1', params: [team] });
const membersOf = (team: string) => ({ sql: 'SELECT * FROM team_manager.team_roster WHERE team_name = $1 ORDER BY position', params: [team] });
const pending = (member: string) => ({ member, requestId: `req-${member}`, answer: 'pending', reason: null, implicit: false });
const answer = (member: string, approved: boolean, reason: string | null = null) => ({ member, requestId: `req-${member}`, answer: approved ? 'approved' : 'rejected', reason, implicit: false });
/** The shutdown protocol `sd-1` as the team row records it. */
const shutdownOf = (outcome: string, requests: unknown[], over: Record<string, unknown> = {}) => ({
  shutdownId: 'sd-1',
  outcome,
  requestedBy: TEAM_LEAD,
  deadline: DEADLINE,
  forced: false,
  timedOut: false,
  unanswered: [],
  requests,
  ...over,
});

describe('team-roster projection', () => {
  const richTeam = (team: string) => inStream(teamStreamId(team), created(team, { description: 'builds the parser', sandbox: READ_ONLY, defaultModel: 'sonnet', maxSpawnDepth: 2 }));

  it('a created team is active with its settings', async () => {
    const team = newTeam();
    await spec()
      .when(richTeam(team))
      .then(teamRow(team), [
        {
          team_id: `id-${team}`,
          description: 'builds the parser',
          lead_agent_type: 'lead-agent',
          metadata: { project: 'parser' },
          sandbox: READ_ONLY,
          default_model: 'sonnet',
          max_spawn_depth: 2,
          status: 'active',
          shutdown: null,
          shutdown_deadline: null,
          created_at: new Date(CREATED_AT),
        },
      ]);
  });

  it("a created team's lead is its first member, with the team's agent type, model and sandbox", async () => {
    const team = newTeam();
    await spec()
      .when(richTeam(team))
      .then(membersOf(team), [
        { member_name: TEAM_LEAD, role: 'lead', member_id: null, agent_type: 'lead-agent', model: 'sonnet', status: 'active', session_key: null, depth: 0, parent: null, sandbox: READ_ONLY },
      ]);
  });

  it('a team created before sandbox settings existed gets the default sandbox', async () => {
    const team = newTeam();
    await spec()
      .when(inStream(teamStreamId(team), created(team)))
      .then(membersOf(team), [{ member_name: TEAM_LEAD, model: null, sandbox: DEFAULT_SANDBOX }]);
  });

  it('a spawned teammate joins the roster after the lead with its session, lane, depth, parent and task', async () => {
    const team = newTeam();
    await spec()
      .given(inStream(teamStreamId(team), created(team)))
      .when(inStream(teamStreamId(team), spawned(team, 'con', { model: 'haiku' }), spawned(team, 'sub', { parent: 'con', depth: 2, sandbox: READ_ONLY })))
      .then(membersOf(team), [
        { member_name: TEAM_LEAD },
        {
          member_name: 'con',
          role: 'teammate',
          member_id: 'm-con',
          agent_id: 'default',
          agent_type: 'general-purpose',
          model: 'haiku',
          status: 'active',
          session_key: sessionKey(team, 'con'),
          lane: 'teammate',
          depth: 1,
          parent: TEAM_LEAD,
          task: "build con's part",
          sandbox: DEFAULT_SANDBOX,
        },
        { member_name: 'sub', model: null, depth: 2, parent: 'con', sandbox: READ_ONLY },
      ]);
  });

  it('an idle teammate is idle, a terminated one terminated, and going idle after termination leaves it terminated', async () => {
    const team = newTeam();
    await spec()
      .given(inStream(teamStreamId(team), created(team), spawned(team, 'con'), spawned(team, 'al')))
      .when(inStream(teamStreamId(team), idle('con'), terminated(team, 'al'), idle('al')))
      .then(membersOf(team), [
        { member_name: TEAM_LEAD, status: 'active' },
        { member_name: 'con', status: 'idle' },
        { member_name: 'al', status: 'terminated' },
      ]);
  });

  it('an announcement to the lead is recorded with its outcome and result', async () => {
    const team = newTeam();
    const id = randomUUID();
    await spec()
      .given(inStream(teamStreamId(team), created(team), spawned(team, 'con')))
      .when(inStream(teamStreamId(team), announced(team, 'con', id)))
      .then({ sql: 'SELECT * FROM team_manager.team_announcements WHERE team_name = $1', params: [team] }, [
        { announcement_id: id, from_member: 'con', to_member: TEAM_LEAD, outcome: 'completed', summary: 'parser done', result: 'all tests pass', announced_at: new Date('2025-01-01T10:04:00.000Z') },
      ]);
  });

  it('a shutdown request puts the team in shutting-down with one pending request per member and its deadline', async () => {
    const team = newTeam();
    await spec()
      .given(inStream(teamStreamId(team), created(team), spawned(team, 'con'), spawned(team, 'al')))
      .when(inStream(teamStreamId(team), shutdownRequested(['con', 'al'])))
      .then(teamRow(team), [
        {
          status: 'shutting-down',
          shutdown_deadline: new Date(DEADLINE),
          shutdown: shutdownOf('pending', [pending('con'), pending('al')]),
        },
      ]);
  });

  it("a member's answer is recorded against its request; a refusal then aborts the shutdown and the team is active again", async () => {
    const team = newTeam();
    await spec()
      .given(inStream(teamStreamId(team), created(team), spawned(team, 'con'), spawned(team, 'al'), shutdownRequested(['con', 'al'])))
      .when(inStream(teamStreamId(team), responded('con', true), responded('al', false, 'mid-refactor'), aborted('al', 'mid-refactor')))
      .then(teamRow(team), [
        {
          status: 'active',
          shutdown_deadline: null,
          shutdown: shutdownOf('aborted', [answer('con', true), answer('al', false, 'mid-refactor')]),
        },
      ]);
  });

  const timedOutShutdown = (team: string) => ({
    history: inStream(teamStreamId(team), created(team), spawned(team, 'con'), spawned(team, 'al'), shutdownRequested(['con', 'al']), responded('con', true)),
    completion: inStream(teamStreamId(team), completed({ shutdownId: 'sd-1', timedOut: true, unanswered: ['al'] })),
  });

  it('a completed shutdown keeps its requests and records who never answered', async () => {
    const team = newTeam();
    const { history, completion } = timedOutShutdown(team);
    await spec()
      .given(history)
      .when(completion)
      .then(teamRow(team), [
        {
          status: 'shutdown',
          shutdown_deadline: null,
          shutdown: shutdownOf('completed', [answer('con', true), pending('al')], { timedOut: true, unanswered: ['al'] }),
        },
      ]);
  });

  it('a completed shutdown terminates every member, the lead included', async () => {
    const team = newTeam();
    const { history, completion } = timedOutShutdown(team);
    await spec()
      .given(history)
      .when(completion)
      .then(membersOf(team), [
        { member_name: TEAM_LEAD, status: 'terminated' },
        { member_name: 'con', status: 'terminated' },
        { member_name: 'al', status: 'terminated' },
      ]);
  });

  it('a forced shutdown with no request before it completes with no requests', async () => {
    const team = newTeam();
    await spec()
      .given(inStream(teamStreamId(team), created(team), spawned(team, 'con')))
      .when(inStream(teamStreamId(team), completed({ forced: true, unanswered: ['con'] })))
      .then(teamRow(team), [
        {
          status: 'shutdown',
          shutdown: { shutdownId: null, requestedBy: null, deadline: null, requests: [], outcome: 'completed', forced: true, timedOut: false, unanswered: ['con'] },
        },
      ]);
  });
});
