import { randomBytes, randomUUID } from 'node:crypto';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The CLI runs in this process against the gateway (its own specs boot the gateway harness, hence the cycle the rule sees).
import { sessionStreamId, type EventData, type sessionEnded, type teammateSpawned } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { loadConfig } from '@headspace/platform';
import { waitFor } from '@headspace/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../testing/in-process-cli';
// The spec boots the real services a teammate's session passes through; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { CostGovernorHarness } from '../../../cost-governor/src/testing/cost-governor-harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as GatewayModule } from '../../../gateway/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as GATEWAY, configSchema as gatewayConfig } from '../../../gateway/src/config';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SseTestClient } from '../../../gateway/src/stream/testing/sse-test-client';
import { startSessionsOnSimulator } from '../sessions/testing/sessions-on-simulator.harness';
import { teammateSessionIdFor, teammateWorkspace } from './teammate-session';
import { SessionSupervisor } from '../sessions/session-supervisor';
import { TeammateSessions } from './teammate-sessions.service';

/**
 * Live teammates through the product: the gateway's REST API and SSE stream and the CLI, the
 * team-manager, the cost governor and an orchestrator on the Messages-API simulator (scenarios in
 * testing/scenarios), on real PostgreSQL and NATS.
 */
const adminToken = `hst_spec_${randomBytes(24).toString('hex')}`;
let h: CostGovernorHarness;
let gateway: NestFastifyApplication;
let store: EventStore;
let teammates: TeammateSessions;
let supervisor: SessionSupervisor;
let root: string;
let base: string;

beforeAll(async () => {
  process.env.SSE_DISCOVERY_MS = '100';
  root = await mkdtemp(join(tmpdir(), 'hs-teammates-'));
  let orchestrator: NestFastifyApplication;
  ({ h, orchestrator, store } = await startSessionsOnSimulator({
    name: 'teammates',
    root,
    scenarios: join(__dirname, 'testing', 'scenarios'),
    env: { HS_ADMIN_TOKEN: adminToken },
    // Turns take a moment, as a model's do: the shutdown lands while the watcher is at work.
    orchestratorEnv: { HS_SIMULATOR_LATENCY: '150,4000', SESSION_LEASE_MS: '1500', SESSION_SWEEP_MS: '300' },
  }));
  teammates = orchestrator.get(TeammateSessions);
  supervisor = orchestrator.get(SessionSupervisor);
  gateway = await h.addCompanion(GatewayModule.forRoot(loadConfig(gatewayConfig, h.env, GATEWAY)));
  await gateway.listen(0, '127.0.0.1');
  base = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
}, 120_000);

afterAll(async () => {
  delete process.env.SSE_DISCOVERY_MS;
  await h?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { items?: Array<Record<string, unknown>> } };
};

async function createTeam(name: string): Promise<void> {
  expect((await api('POST', '/api/v1/teams', { name })).status).toBe(201);
}

const sessionEvents = async (sessionId: string) => store.readStream(sessionStreamId(sessionId));
const endOf = async (sessionId: string) => (await sessionEvents(sessionId)).find((e) => e.type === 'session.ended')?.data as EventData<typeof sessionEnded> | undefined;
const teamManagerEvents = async (type: string, streamLike: string) =>
  (await h.db.pool.query<{ stream_id: string; data: Record<string, unknown> }>(`SELECT stream_id, data FROM team_manager.events WHERE type = $1 AND stream_id LIKE $2 ORDER BY global_position`, [type, streamLike])).rows;
const leaseHeld = async (sessionId: string) => (await h.db.pool.query(`SELECT 1 FROM orchestrator.session_leases WHERE session_id = $1`, [sessionId])).rowCount === 1;

/** Runs `headspace …` in this process against the gateway. */
const cli = (args: string[]) =>
  runCliCaptured(args, { HEADSPACE_URL: base, HEADSPACE_TOKEN: adminToken, HEADSPACE_CONFIG: join(root, 'cli.json'), NO_COLOR: '1' });

describe('a spawned teammate runs a real session', () => {
  it('`headspace teammate spawn` starts its session, whose turns stream over SSE; the task it completes gives its file lock back; its completion is announced, it goes idle, and a shutdown asked of it then completes at once', async () => {
    const team = 'tm-locks';
    await createTeam(team);
    expect((await api('POST', `/api/v1/teams/${team}/tasks`, { id: 'write-notes', subject: 'Write the notes' })).status).toBe(201);
    const feed = await SseTestClient.open(`${base}/api/v1/stream?team=${team}`, { authorization: `Bearer ${adminToken}` });
    expect(feed.status).toBe(200);

    const spawned = await cli(['teammate', 'spawn', 'lockie', '--team', team, '--task', 'Write the notes in NOTES.md', '--json']);
    expect(spawned.code, spawned.err).toBe(0);
    const spec = JSON.parse(spawned.out) as { name: string; sessionKey: string; lane: string };
    expect(spec).toMatchObject({ name: 'lockie', lane: 'teammate' });
    const sessionId = teammateSessionIdFor(spec.sessionKey);

    // Its session starts and its turns appear on the team's stream.
    const started = await feed.next((m) => m.event === 'session.started' && m.data.includes(sessionId), 'the teammate’s session.started on SSE');
    expect(started.json<{ data: { persona: string; situation: string } }>().data).toMatchObject({ persona: 'lockie', situation: 'teammate' });
    await feed.next((m) => m.event === 'session.model-called' && m.data.includes(sessionId), 'a turn of the teammate on SSE');
    await feed.next((m) => m.event === 'session.tool-called' && m.data.includes(sessionId) && m.data.includes('lock_file'), 'its lock_file call on SSE');

    // It ends by itself, having claimed, locked, written and completed.
    const ended = await waitFor(() => endOf(sessionId), { timeoutMs: 60_000, message: 'the teammate’s session to end' });
    expect(ended).toMatchObject({ exitReason: 'completed' });
    expect(await readFile(join(teammateWorkspace(join(root, 'runs'), team), 'NOTES.md'), 'utf8')).toBe('# Notes\n\nWritten by lockie.\n');
    const tools = (await sessionEvents(sessionId)).filter((e) => e.type === 'session.tool-called').map((e) => e.data as { tool: string; isError: boolean });
    expect(tools).toEqual(['claim_task', 'lock_file', 'Write', 'complete_task'].map((tool) => expect.objectContaining({ tool, isError: false })));

    // The lock was taken by the teammate and given back when its task completed.
    expect(await teamManagerEvents('filelock.acquired', `filelock-${team}:%`)).toEqual([expect.objectContaining({ data: expect.objectContaining({ path: 'NOTES.md', holder: 'lockie' }) })]);
    await waitFor(async () => (await teamManagerEvents('filelock.released', `filelock-${team}:%`)).length > 0, { message: 'the lock to be released' });
    expect(await teamManagerEvents('filelock.released', `filelock-${team}:%`)).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ path: 'NOTES.md', holder: 'lockie', reason: 'task-completed' }) }),
    ]);
    await waitFor(async () => (await api('GET', `/api/v1/teams/${team}/locks`)).body.items?.length === 0, { message: 'no lock listed' });

    // Its session's end is its report: completion announced to the lead, and it went idle.
    const announcements = await waitFor(async () => {
      const items = (await api('GET', `/api/v1/teams/${team}/announcements`)).body.items ?? [];
      return items.length ? items : undefined;
    }, { timeoutMs: 20_000, message: 'the completion announcement' });
    expect(announcements).toEqual([expect.objectContaining({ from: 'lockie', to: 'team-lead', outcome: 'completed' })]);
    const roster = await waitFor(async () => {
      const { items } = (await api('GET', `/api/v1/teams/${team}/members`)).body;
      return items?.find((m) => m.name === 'lockie' && m.status === 'idle');
    }, { message: 'lockie idle in the roster' });
    expect(roster).toMatchObject({ role: 'teammate', agentType: 'general-purpose' });
    const listed = await cli(['teammate', 'list', '--team', team]);
    expect(listed.out.split('\n').find((line) => line.includes('lockie'))).toMatch(/teammate.*general-purpose.*idle/);

    // Asked to shut down once idle, it has nothing in progress: its approval is implicit and the team shuts down at once.
    const asked = await api('POST', `/api/v1/teams/${team}/shutdown`, { reason: 'done for today' });
    expect(asked.status).toBe(202);
    await waitFor(async () => (await api('GET', `/api/v1/teams/${team}`)).body.status === 'shutdown' || undefined, { message: 'the team shut down without waiting for lockie' });
    expect((await teamManagerEvents('team.shutdown-responded', `team-${team}`)).map((e) => e.data)).toEqual([
      expect.objectContaining({ member: 'lockie', approve: true, implicit: true, reason: 'idle when the shutdown was requested' }),
    ]);
    feed.close();
  }, 120_000);

  it('shutdown stops it at once: the session ends `cancelled` with the termination’s reason before a lease-based stop could, takes no further turn, and its lock is given back', async () => {
    const team = 'tm-stop';
    await createTeam(team);
    const feed = await SseTestClient.open(`${base}/api/v1/stream?team=${team}`, { authorization: `Bearer ${adminToken}` });
    const spawned = await api('POST', `/api/v1/teams/${team}/members`, { name: 'watcher', task: 'Watch the task list until told to stop' });
    expect(spawned.status).toBe(201);
    const sessionId = teammateSessionIdFor(String(spawned.body.sessionKey));

    await feed.until(() => feed.messages.filter((m) => m.event === 'session.model-called' && m.data.includes(sessionId)).length >= 3 || undefined, 'three turns of the watcher on SSE', 60_000);
    expect((await api('GET', `/api/v1/teams/${team}/locks`)).body.items).toEqual([expect.objectContaining({ path: 'WATCH.md', holder: 'watcher' })]);
    expect(await endOf(sessionId)).toBeUndefined();

    // The lead asks; the watcher's answer (approve) terminates it.
    const asked = await api('POST', `/api/v1/teams/${team}/shutdown`, { reason: 'end of the day' });
    expect(asked.status).toBe(202);
    const [request] = asked.body.requests as Array<{ member: string; requestId: string }>;
    expect(request.member).toBe('watcher');
    expect((await api('POST', `/api/v1/teams/${team}/shutdown/responses`, { member: 'watcher', requestId: request.requestId, approve: true })).status).toBe(200);

    const ended = await waitFor(() => endOf(sessionId), { timeoutMs: 30_000, message: 'the watcher’s session to be stopped' });
    expect(ended).toMatchObject({ exitReason: 'cancelled', summary: 'Stopped: the teammate was terminated (shutdown-approved)' });
    // The runner runs here: it was aborted between steps and its end recorded then, sooner than a
    // runner elsewhere (which sees the stop at a lease renewal) or the sweep could have recorded it.
    const [terminated] = await teamManagerEvents('teammate.terminated', `team-${team}`);
    const stoppedAfterMs = Date.parse(ended!.at) - Date.parse(String(terminated.data.terminatedAt));
    expect(stoppedAfterMs).toBeGreaterThanOrEqual(0);
    expect(stoppedAfterMs).toBeLessThan(supervisor.stopSettleMs);
    await feed.next((m) => m.event === 'session.ended' && m.data.includes(sessionId), 'the session.ended on SSE');

    // The runner has let go of the session, and nothing was recorded after its end.
    await waitFor(async () => !(await leaseHeld(sessionId)), { timeoutMs: 30_000, message: 'the runner to stop' });
    const events = await sessionEvents(sessionId);
    expect(events.at(-1)?.type).toBe('session.ended');
    expect(events.filter((e) => e.type === 'session.ended')).toHaveLength(1);

    // Its lock went back with it; a stopped teammate reports nothing.
    await waitFor(async () => (await api('GET', `/api/v1/teams/${team}/locks`)).body.items?.length === 0, { message: 'the watcher’s lock to be released' });
    expect(await teamManagerEvents('filelock.released', `filelock-${team}:%`)).toEqual([expect.objectContaining({ data: expect.objectContaining({ path: 'WATCH.md', holder: 'watcher' }) })]);
    expect((await api('GET', `/api/v1/teams/${team}`)).body).toMatchObject({ status: 'shutdown' });
    expect((await api('GET', `/api/v1/teams/${team}/announcements`)).body.items).toEqual([]);
    feed.close();
  }, 120_000);

  it('a spawn retried with its Idempotency-Key, or delivered again, starts one session; a teammate terminated before its spawn is handled never starts', async () => {
    const team = 'tm-twice';
    await createTeam(team);
    const key = randomUUID();
    const body = { name: 'twin', task: 'Wait for work' };
    const first = await api('POST', `/api/v1/teams/${team}/members`, body, { 'idempotency-key': key });
    const again = await api('POST', `/api/v1/teams/${team}/members`, body, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(again).toEqual(first);
    const sessionId = teammateSessionIdFor(String(first.body.sessionKey));
    expect(await waitFor(() => endOf(sessionId), { timeoutMs: 60_000, message: 'the twin’s session to end' })).toMatchObject({ exitReason: 'completed' });

    // The same spawn handled again (a redelivery, a replay after a crash) finds its session.
    const [spawnedEvent] = await teamManagerEvents('teammate.spawned', `team-${team}`);
    const spawned = spawnedEvent.data as EventData<typeof teammateSpawned>;
    expect(await teammates.start({ team, eventId: randomUUID() }, spawned)).toBe('exists');
    expect(await teamManagerEvents('teammate.spawned', `team-${team}`)).toHaveLength(1);
    expect((await sessionEvents(sessionId)).filter((e) => e.type === 'session.started')).toHaveLength(1);

    // A termination handled before its spawn (out of order) leaves a session that started and ended: the spawn starts nothing.
    const ghostKey = `agent:default:teammate:${randomUUID()}`;
    const ghost = { ...spawned, name: 'ghost', sessionKey: ghostKey };
    await teammates.stop({ team, eventId: randomUUID() }, { name: 'ghost', sessionKey: ghostKey, reason: 'forced', terminatedAt: new Date().toISOString() });
    expect(await teammates.start({ team, eventId: randomUUID() }, ghost)).toBe('exists');
    const ghostEvents = await sessionEvents(teammateSessionIdFor(ghostKey));
    expect(ghostEvents.map((e) => e.type)).toEqual(['session.started', 'session.ended']);
    expect(ghostEvents[1].data).toMatchObject({ exitReason: 'cancelled', turns: 0 });
  }, 120_000);
});
