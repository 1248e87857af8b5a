import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { EventStore, migrate } from '@headspace/event-store';
import { shutdownTelemetry, startTelemetry } from '@headspace/telemetry';
import { createTestDatabase, metricSamples, metricValue, scrapeMetrics, waitFor, type TestDatabase } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionRecorder } from '../sessions/session-recorder';
import { countRunEvents } from './orchestrator-metrics';
import { RunsActiveGauge } from './runs-active-gauge';

const schema = 'orch_metrics';
let db: TestDatabase;
let store: EventStore;

beforeAll(async () => {
  startTelemetry({ serviceName: 'orchestrator-metrics-spec', env: {} });
  db = await createTestDatabase('orch_metrics');
  await migrate(db.pool, { schema, dirs: [join(__dirname, '..', 'migrations')] });
  store = new EventStore({ pool: db.pool, schema });
});
afterAll(async () => {
  await db?.drop();
  await shutdownTelemetry();
});

const now = () => new Date().toISOString();
const usage = { inputTokens: 10, outputTokens: 5, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 };

/** Reads every value the spec looks at, so a test compares before and after. */
async function readings(persona: string, model: string, tool: string) {
  const text = await scrapeMetrics();
  const v = (name: string, labels: Record<string, string>) => metricValue(text, name, labels) ?? 0;
  return {
    active: v('headspace_orchestrator_sessions_active', { persona }),
    turns: v('headspace_orchestrator_turns_total', { persona, model }),
    toolOk: v('headspace_orchestrator_tool_calls_total', { tool, outcome: 'ok' }),
    toolError: v('headspace_orchestrator_tool_calls_total', { tool, outcome: 'error' }),
    handoffs: v('headspace_orchestrator_handoffs_total', { persona }),
    compactions: metricValue(text, 'headspace_orchestrator_compactions_total', { persona }),
  };
}

function startCommand(sessionId: string, persona: string, model: string) {
  return {
    type: 'start-session' as const,
    sessionId,
    team: 'metrics-team',
    persona,
    kind: 'task' as const,
    model,
    effort: 'standard' as const,
    runtime: 'built-in' as const,
    simulated: true,
    prompt: 'Count things.',
    now: now(),
  };
}

function modelCall(sessionId: string, turn: number, model: string, toolUses: string[], tool: string) {
  return {
    type: 'record-model-call' as const,
    sessionId,
    turn,
    model,
    stopReason: toolUses.length ? 'tool_use' : 'end_turn',
    content: toolUses.map((id) => ({ type: 'tool_use', id, name: tool, input: {} })),
    usage,
    injectedMessageIds: [],
    durationMs: 12,
    now: now(),
  };
}

function toolCall(sessionId: string, turn: number, toolUseId: string, tool: string, isError: boolean) {
  return { type: 'record-tool-call' as const, sessionId, turn, toolUseId, tool, isError, content: isError ? 'failed' : 'ok', filesModified: [], hooks: [], durationMs: 3, now: now() };
}

describe('orchestrator metrics', () => {
  it("count a session's steps as its recorder appends them: active while it runs, turns, tool calls by outcome, handoffs", async () => {
    const persona = `p${randomUUID().slice(0, 8)}`;
    const tool = `Tool${randomUUID().slice(0, 6)}`;
    const model = 'claude-sonnet-4-6';
    const sessionId = randomUUID();
    const before = await readings(persona, model, tool);
    expect(before.compactions).toBeUndefined();

    const recorder = await SessionRecorder.load(store, sessionId);
    await recorder.record(startCommand(sessionId, persona, model));
    const started = await readings(persona, model, tool);
    expect(started).toMatchObject({ active: 1, turns: 0, handoffs: 0, compactions: 0 });

    await recorder.record(modelCall(sessionId, 1, model, ['tu-1', 'tu-2'], tool));
    await recorder.record(toolCall(sessionId, 1, 'tu-1', tool, false));
    await recorder.record(toolCall(sessionId, 1, 'tu-2', tool, true));
    await recorder.record(modelCall(sessionId, 2, model, [], tool));
    await recorder.record({ type: 'record-handoff', sessionId, handoff: { summary: 'full' }, contextUsedPercent: 91, now: now() });
    expect(await readings(persona, model, tool)).toMatchObject({ active: 1, turns: 2, toolOk: 1, toolError: 1, handoffs: 1 });

    await recorder.record({ type: 'end-session', sessionId, exitReason: 'handoff', summary: 'handed off', now: now() });
    expect(await readings(persona, model, tool)).toMatchObject({ active: 0, turns: 2, toolOk: 1, toolError: 1, handoffs: 1, compactions: 0 });
  });

  it('count nothing twice: a session loaded again, a step repeated by a second recorder, count only what is appended', async () => {
    const persona = `p${randomUUID().slice(0, 8)}`;
    const tool = `Tool${randomUUID().slice(0, 6)}`;
    const model = 'claude-haiku-4-5-20251001';
    const sessionId = randomUUID();
    const first = await SessionRecorder.load(store, sessionId);
    await first.record(startCommand(sessionId, persona, model));
    // Two recorders at the same version, as after a crash whose turn was appended just before it.
    const stale = await SessionRecorder.load(store, sessionId);
    await first.record(modelCall(sessionId, 1, model, ['tu-1'], tool));
    await stale.record(modelCall(sessionId, 1, model, ['tu-1'], tool)).catch(() => undefined);
    expect(await readings(persona, model, tool)).toMatchObject({ active: 1, turns: 1 });

    // A restarted orchestrator resumes it: reading its history counts nothing, its next step counts once.
    const resumed = await SessionRecorder.load(store, sessionId);
    expect(await readings(persona, model, tool)).toMatchObject({ active: 1, turns: 1, toolOk: 0 });
    await resumed.record(toolCall(sessionId, 1, 'tu-1', tool, false));
    await resumed.record({ type: 'end-session', sessionId, exitReason: 'completed', summary: 'done', now: now() });
    // Counted active once per session, whichever recorder of this process appends its steps.
    expect(await readings(persona, model, tool)).toMatchObject({ active: 0, turns: 1, toolOk: 1 });
    await SessionRecorder.load(store, sessionId);
    expect(await readings(persona, model, tool)).toMatchObject({ active: 0, turns: 1, toolOk: 1 });
  });

  it('count ended runs by outcome, every outcome exported from the start', async () => {
    const text = await scrapeMetrics();
    const before = Object.fromEntries(['done', 'issues', 'failed'].map((outcome) => [outcome, metricValue(text, 'headspace_orchestrator_runs_ended_total', { outcome })]));
    expect(Object.values(before).every((v) => typeof v === 'number')).toBe(true);
    countRunEvents([
      { type: 'run.completed', data: { runId: 'r1', verdict: 'issues', resultDir: '/tmp/r1', branch: 'b', headCommit: 'c', at: now() } },
      { type: 'run.failed', data: { runId: 'r2', reason: 'stopped', at: now() } },
      { type: 'run.failed', data: { runId: 'r3', reason: 'stopped', at: now() } },
    ]);
    const after = await scrapeMetrics();
    expect(metricValue(after, 'headspace_orchestrator_runs_ended_total', { outcome: 'done' })).toBe(before.done);
    expect(metricValue(after, 'headspace_orchestrator_runs_ended_total', { outcome: 'issues' })).toBe(before.issues! + 1);
    expect(metricValue(after, 'headspace_orchestrator_runs_ended_total', { outcome: 'failed' })).toBe(before.failed! + 2);
  });

  it('report the runs not ended by phase from the runs read model, 0 for phases no run is in', async () => {
    const insert = (phase: string, ended: boolean) =>
      db.pool.query(
        `INSERT INTO ${schema}.runs (run_id, team, title, mode, phase, verdict, leases_held, started_at, updated_at, ended_at)
         VALUES ($1, 't', 'title', 'v3', $2, NULL, 0, now(), now(), ${ended ? 'now()' : 'NULL'})`,
        [randomUUID(), phase],
      );
    await Promise.all([insert('execution', false), insert('execution', false), insert('qa', false), insert('completed', true), insert('failed', true)]);
    const gauge = new RunsActiveGauge(db.pool, schema);
    gauge.onApplicationBootstrap();
    try {
      const text = await scrapeMetrics();
      const byPhase = Object.fromEntries(metricSamples(text, 'headspace_orchestrator_runs_active').map((s) => [s.labels.phase, s.value]));
      expect(byPhase).toEqual({ workshop: 0, 'spec-review': 0, decomposition: 0, 'tasks-review': 0, execution: 2, qa: 1, review: 0 });
      // Cached: another run shows within RUNS_ACTIVE_MAX_AGE_MS, not by a query per scrape.
      await insert('review', false);
      await waitFor(async () => metricValue(await scrapeMetrics(), 'headspace_orchestrator_runs_active', { phase: 'review' }) === 1, { timeoutMs: 30_000, message: 'the new run to show' });
    } finally {
      gauge.onApplicationShutdown();
    }
  });
});
