import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { EventRegistry, sessionEvents, sessionStreamId } from '@headspace/contracts';
import { EventStore, migrate } from '@headspace/event-store';
import { createTestDatabase, waitFor, type TestDatabase } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentSessionsProjection } from './agent-sessions.projection';
import type { SessionPorts } from './run-session/agent-session.runner';
import { SessionRecorder } from './session-recorder';
import { SessionSupervisor, type SessionPortsFactory, type SessionStart } from './session-supervisor';

const schema = 'orchestrator';
let db: TestDatabase;
let store: EventStore;
let projection: AgentSessionsProjection;
const supervisors: SessionSupervisor[] = [];

beforeAll(async () => {
  db = await createTestDatabase('supervisor');
  await migrate(db.pool, { schema, dirs: [join(__dirname, '..', 'migrations')] });
  store = new EventStore({ pool: db.pool, schema, registry: new EventRegistry([...sessionEvents]) });
  projection = new AgentSessionsProjection(store);
  projection.onApplicationBootstrap();
});
afterAll(async () => {
  for (const s of supervisors) await s.beforeApplicationShutdown();
  await projection?.beforeApplicationShutdown();
  await db?.drop();
});

const zero = { inputTokens: 10, outputTokens: 5, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 };

/** Ports whose model writes one file, then finishes; `gate` holds the tool call until released. */
function factory(log: string[], gate?: Promise<void>): SessionPortsFactory {
  return {
    async create(started) {
      let calls = 0;
      const ports: SessionPorts = {
        system: [],
        clock: () => new Date().toISOString(),
        model: {
          contextWindow: () => 200_000,
          async call(req) {
            calls++;
            return calls === 1 && !req.messages.some((m) => JSON.stringify(m).includes('tool_result'))
              ? { model: req.model, stopReason: 'tool_use', usage: zero, content: [{ type: 'tool_use', id: `w-${started.sessionId}`, name: 'Write', input: {} }] }
              : { model: req.model, stopReason: 'end_turn', usage: zero, content: [{ type: 'text', text: 'done {"ok":true}' }] };
          },
        },
        tools: {
          definitions: () => [],
          async run(call) {
            await gate;
            log.push(call.id);
            return { content: 'ok', isError: false, filesModified: [], hooks: [] };
          },
          onStop: async () => undefined,
        },
        budget: { maySpend: async ({ model }) => ({ decision: 'allowed', model }), recordUsage: async () => undefined, release: async () => undefined },
        mail: { peek: async () => ({ messageIds: [] }), markRead: async () => undefined },
        reflection: { retryPrompt: () => 'again', parse: () => ({ ok: true, reflection: { ok: true } }) },
        handoff: { request: () => 'handoff', parse: () => ({ ok: false, error: 'none' }) },
      };
      return { ports, limits: { maxTurns: 5, maxOutputTokens: 100, handoffThreshold: 0.8 } };
    },
  };
}

const leaseOwner = async (sessionId: string) => (await db.pool.query<{ owner: string }>(`SELECT owner FROM orchestrator.session_leases WHERE session_id = $1`, [sessionId])).rows[0]?.owner;

function supervisor(f: SessionPortsFactory, leaseMs = 2_000) {
  const s = new SessionSupervisor(store, db.pool, schema, f, { leaseMs, sweepMs: 60_000 });
  supervisors.push(s);
  return s;
}

const start = (sessionId: string): SessionStart => ({
  sessionId,
  team: 'red',
  persona: 'con',
  kind: 'task',
  model: 'claude-haiku-4-5',
  effort: 'quick',
  runtime: 'built-in',
  simulated: true,
  prompt: 'write a file',
});

describe('session supervisor', () => {
  it('runs a started session to its end and projects it', async () => {
    const log: string[] = [];
    const s = supervisor(factory(log));
    const sessionId = randomUUID();
    const ended = s.whenEnded(sessionId);
    await s.start(start(sessionId));
    expect(await ended).toMatchObject({ exitReason: 'completed', turns: 2 });
    await projection.runner.waitUntilCaughtUp();
    const { rows } = await db.pool.query(`SELECT status, exit_reason, turns, tool_calls FROM orchestrator.agent_sessions WHERE session_id = $1`, [sessionId]);
    expect(rows).toEqual([{ status: 'ended', exit_reason: 'completed', turns: 2, tool_calls: 1 }]);
  });

  it('a running session whose instance died is resumed by exactly one of two instances', async () => {
    const sessionId = randomUUID();
    // An instance that recorded the start and then died: no lease, the session still running.
    await (await SessionRecorder.load(store, sessionId)).record({ type: 'start-session', ...start(sessionId), now: new Date().toISOString() });
    await projection.runner.waitUntilCaughtUp();
    const log: string[] = [];
    const [a, b] = [supervisor(factory(log)), supervisor(factory(log))];
    const endedA = a.whenEnded(sessionId);
    const endedB = b.whenEnded(sessionId);
    const launched = await Promise.all([a.resumeOrphans(), b.resumeOrphans()]);
    expect(launched.flat().filter((id) => id === sessionId)).toHaveLength(1);
    await Promise.race([endedA, endedB]);
    expect(log).toEqual([`w-${sessionId}`]);
  });

  it('shutdown interrupts a session between steps and another instance finishes it without repeating work', async () => {
    const sessionId = randomUUID();
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = supervisor(factory(log, gate));
    await first.start(start(sessionId));
    await waitFor(async () => (await SessionRecorder.load(store, sessionId)).state.turns === 1, { message: 'first turn recorded' });
    const stopping = first.beforeApplicationShutdown();
    release();
    await stopping;
    const state = (await SessionRecorder.load(store, sessionId)).state;
    expect(state.status).toBe('running');
    await projection.runner.waitUntilCaughtUp();
    const second = supervisor(factory(log));
    const ended = second.whenEnded(sessionId);
    expect(await second.resumeOrphans()).toContain(sessionId);
    expect(await ended).toMatchObject({ exitReason: 'completed' });
    expect(log).toEqual([`w-${sessionId}`]);
  });

  it('stop of a session running here aborts it after the step in flight and records its end `cancelled` at once', async () => {
    const sessionId = randomUUID();
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const s = supervisor(factory(log, gate));
    const ended = s.whenEnded(sessionId);
    await s.start(start(sessionId));
    await waitFor(async () => (await SessionRecorder.load(store, sessionId)).state.turns === 1, { message: 'first turn recorded' });
    const stopping = s.stop(sessionId, 'Stopped by the spec');
    await waitFor(async () => (await leaseOwner(sessionId))?.startsWith('stop:'), { message: 'the stop to take the lease' });
    // The tool call in flight finishes (it is not cut off), then the runner stops before another turn.
    release();
    expect(await stopping).toBe('stopped');
    const recorder = await SessionRecorder.load(store, sessionId);
    expect(recorder.events.map((e) => e.type).slice(-2)).toEqual(['session.tool-called', 'session.ended']);
    expect(recorder.events.at(-1)?.data).toMatchObject({ exitReason: 'cancelled', summary: 'Stopped by the spec', turns: 1 });
    expect(await ended).toMatchObject({ exitReason: 'cancelled', summary: 'Stopped by the spec', turns: 1 });
    expect(log).toEqual([`w-${sessionId}`]);
    expect(await leaseOwner(sessionId)).toBeUndefined();
    // Asked again (a redelivered termination): nothing more is recorded.
    expect(await s.stop(sessionId, 'Stopped by the spec')).toBe('ended');
    expect((await store.readStream(sessionStreamId(sessionId))).filter((e) => e.type === 'session.ended')).toHaveLength(1);
  });

  it('stop of a session another instance runs takes its lease; that instance stops between steps and records the end at its next renewal', async () => {
    const sessionId = randomUUID();
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runner = supervisor(factory(log, gate), 600);
    const other = supervisor(factory(log), 600);
    await runner.start(start(sessionId));
    await waitFor(async () => (await SessionRecorder.load(store, sessionId)).state.turns === 1, { message: 'first turn recorded' });
    expect(await other.stop(sessionId, 'Stopped elsewhere')).toBe('stopping');
    expect(await leaseOwner(sessionId)).toBe('stop:Stopped elsewhere');
    // Nobody resumes a stopped session meanwhile.
    await projection.runner.waitUntilCaughtUp();
    expect(await other.resumeOrphans()).not.toContain(sessionId);
    // Past a few renewals (every 200 ms) of the runner's lease, the last of which it lost, the tool call in flight finishes.
    await new Promise((r) => setTimeout(r, 1_000));
    release();
    const end = await waitFor(async () => (await SessionRecorder.load(store, sessionId)).events.find((e) => e.type === 'session.ended'), { timeoutMs: 5_000, message: 'the end recorded by the instance running it' });
    expect(end.data).toMatchObject({ exitReason: 'cancelled', summary: 'Stopped elsewhere', turns: 1 });
    await waitFor(async () => (await leaseOwner(sessionId)) === undefined, { message: 'the stop’s lease let go' });
    expect(log).toEqual([`w-${sessionId}`]);
  });

  it('stop of a session whose instance died is finished by the sweep once the stop has settled', async () => {
    const sessionId = randomUUID();
    await (await SessionRecorder.load(store, sessionId)).record({ type: 'start-session', ...start(sessionId), now: new Date().toISOString() });
    const s = supervisor(factory([]));
    expect(await s.stop(sessionId, 'Stopped while orphaned')).toBe('stopping');
    expect(await s.finishStops(60_000)).not.toContain(sessionId);
    expect(await s.finishStops(0)).toEqual(expect.arrayContaining([sessionId]));
    const events = await store.readStream(sessionStreamId(sessionId));
    expect(events.map((e) => e.type)).toEqual(['session.started', 'session.ended']);
    expect(events[1].data).toMatchObject({ exitReason: 'cancelled', summary: 'Stopped while orphaned', turns: 0 });
    expect(await leaseOwner(sessionId)).toBeUndefined();
    expect(await s.stop(randomUUID(), 'nothing there')).toBe('unknown');
  });
});
