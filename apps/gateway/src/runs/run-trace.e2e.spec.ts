import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { subjectNamespace } from '@headspace/contracts';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { startTelemetry } from '@headspace/telemetry';
import { waitFor } from '@headspace/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { InMemorySpanExporter, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseTestClient } from '../stream/testing/sse-test-client';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';
import { spanTree, type SpanTree } from './testing/span-tree';
// The spec restarts the orchestrator mid-run; apps never import each other outside tests.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as OrchestratorModule } from '../../../orchestrator/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as ORCHESTRATOR, configSchema as orchestratorConfig } from '../../../orchestrator/src/config';

const repo = resolve(__dirname, '../../../..');
// Every span of the test process (all services run in it) lands here. A service's shutdown stops
// telemetry (the restart below), so the processor ignores shutdown, and telemetry is started again:
// tracers resolved before keep their first provider, whose processors still deliver here.
const exporter = new InMemorySpanExporter();
const keep: SpanProcessor = { onStart: () => undefined, onEnd: (span) => exporter.export([span], () => undefined), forceFlush: async () => undefined, shutdown: async () => undefined };
const startTracing = () => startTelemetry({ serviceName: 'headspace-run-trace-spec', spanProcessors: [keep] });
startTracing();

let h: GatewayHarness;
let workspaces: string;
let orchestrator: NestFastifyApplication | undefined;

/** The orchestrator in this process, on the harness's database and namespace; a new one is a restart. */
async function startOrchestrator(): Promise<NestFastifyApplication> {
  const env = {
    DATABASE_URL: h.db.url,
    NATS_URL: process.env.NATS_URL,
    LOG_LEVEL: 'warn',
    HS_NAMESPACE: subjectNamespace(),
    HS_ADMIN_TOKEN: h.adminToken,
    HS_WORKSPACES_DIR: join(workspaces, 'runs'),
    HS_AGENT_HOME: join(workspaces, 'agents'),
    HS_SIMULATOR_SCENARIOS: join(repo, 'examples', 'scenarios', 'word-stats'),
    RUN_SWEEP_MS: '300',
    SESSION_SWEEP_MS: '300',
    SESSION_LEASE_MS: '2000',
  };
  const app = await createServiceApp(OrchestratorModule.forRoot(loadConfig(orchestratorConfig, env, ORCHESTRATOR)), { bufferLogs: false });
  await app.init();
  return app;
}

beforeAll(async () => {
  workspaces = await mkdtemp(join(tmpdir(), 'hs-run-trace-'));
  h = await startGatewayHarness({ label: 'runtrace', costGovernor: true });
  orchestrator = await startOrchestrator();
}, 120_000);
afterAll(async () => {
  await orchestrator?.close();
  await h?.close();
  await rm(workspaces, { recursive: true, force: true });
});

/** Starts the example run through the API. */
async function startExampleRun(team: string, key: string): Promise<string> {
  const goal = await readFile(join(repo, 'examples', 'word-stats', 'GOAL.md'), 'utf8');
  const started = await h.call(
    { method: 'POST', url: `/api/v1/teams/${team}/runs`, payload: { goal, source: join(repo, 'examples', 'word-stats'), mode: 'v3', operator: 'auto' }, headers: { 'idempotency-key': key } },
    h.adminToken,
  );
  expect(started.statusCode).toBe(201);
  return (started.json() as { runId: string }).runId;
}

async function completed(team: string, runId: string): Promise<void> {
  await waitFor(
    async () => {
      const view = (await h.call({ method: 'GET', url: `/api/v1/teams/${team}/runs/${runId}` }, h.adminToken)).json() as { phase: string };
      if (view.phase === 'failed') throw new Error(`run failed: ${JSON.stringify(view)}`);
      return view.phase === 'completed' || undefined;
    },
    { timeoutMs: 240_000, intervalMs: 300, message: 'the example run to complete' },
  );
}

/** The finished spans once the run span (recorded when the run ends) is among them. */
const runTrace = (runId: string): Promise<SpanTree> =>
  waitFor(
    () => {
      const spans = exporter.getFinishedSpans();
      return spans.some((s) => s.name === `run ${runId}`) ? spanTree(spans, `run ${runId}`) : undefined;
    },
    { timeoutMs: 30_000, message: 'the run span' },
  );

const names = (spans: ReadableSpan[]) => spans.map((s) => s.name);

describe('one trace per run', () => {
  it('the example run is one trace: the run span at its root, phases → task attempts → sessions → turns → chat and tool calls beneath, across services', async () => {
    await h.http().listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.http().server.address() as { port: number };
    const story = await SseTestClient.open(`http://127.0.0.1:${port}/api/v1/stream?team=word-stats&types=run.*`, { authorization: `Bearer ${h.adminToken}` });
    const runId = await startExampleRun('word-stats', 'run-trace-1');
    await completed('word-stats', runId);
    const tree = await runTrace(runId);
    const { root } = tree;

    // The run span is the root; every span about the run is in its trace and reaches it.
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.attributes).toMatchObject({ 'headspace.run_id': runId, 'headspace.run_outcome': 'done' });
    const ofRun = exporter.getFinishedSpans().filter((s) => s.attributes['headspace.run_id'] === runId);
    expect(new Set(ofRun.map((s) => s.spanContext().traceId))).toEqual(new Set([tree.traceId]));
    expect(tree.spans.filter((s) => tree.path(s).at(-1) !== root).map((s) => s.name)).toEqual([]);

    // Phases in order beneath the run.
    const phases = tree.spans.filter((s) => s.name.startsWith('phase ')).sort((a, b) => Number(a.startTime[0] - b.startTime[0]) || a.startTime[1] - b.startTime[1]);
    expect([...new Set(names(phases))]).toEqual(['phase workshop', 'phase spec-review', 'phase decomposition', 'phase execution', 'phase qa', 'phase review']);
    for (const phase of phases) expect(tree.parentOf(phase)).toBe(root);

    // Every model call: chat → turn → invoke_agent → attempt → phase → run, with the GenAI attributes and its cost.
    const chats = tree.spans.filter((s) => s.name.startsWith('chat '));
    expect(chats.length).toBeGreaterThan(10);
    for (const chat of chats) {
      const path = tree.path(chat).map((s) => s.name);
      expect(path).toHaveLength(6);
      expect(path[1]).toMatch(/^turn \d+$/);
      expect(path[2]).toMatch(/^invoke_agent [a-z]+$/);
      expect(path[3]).toMatch(/^(task [A-Z0-9-]+|workshop|decompose|qa|review|escalation) attempt \d+$/);
      expect(path[4]).toMatch(/^phase /);
      expect(chat.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.agent.name': path[2].slice('invoke_agent '.length), 'headspace.run_id': runId });
      expect(typeof chat.attributes['gen_ai.request.model']).toBe('string');
      expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(chat.attributes['headspace.cost.usd']).toBeGreaterThan(0);
    }
    // A builder's task: its attempt is in the execution phase, its session beneath it.
    const t1 = tree.spans.find((s) => s.name === 'task T1 attempt 1')!;
    expect(t1).toBeDefined();
    expect(tree.parentOf(t1)!.name).toBe('phase execution');
    expect(tree.childrenOf(t1).map((s) => s.name)).toContain(`invoke_agent ${t1.attributes['headspace.persona']}`);
    const session = tree.childrenOf(t1).find((s) => s.name.startsWith('invoke_agent '))!;
    expect(session.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': t1.attributes['headspace.session_id'], 'gen_ai.conversation.id': t1.attributes['headspace.session_id'] });

    // Tool calls are children of their turn, hooks run beneath a turn.
    const tools = tree.spans.filter((s) => s.name.startsWith('execute_tool '));
    expect(tools.length).toBeGreaterThan(5);
    for (const tool of tools) {
      expect(tree.parentOf(tool)!.name).toMatch(/^turn \d+$/);
      expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool.name.slice('execute_tool '.length) });
      expect(['function', 'extension']).toContain(tool.attributes['gen_ai.tool.type']);
      expect(typeof tool.attributes['gen_ai.tool.call.id']).toBe('string');
    }
    const hooks = tree.spans.filter((s) => s.name.startsWith('hook '));
    expect(hooks.length).toBeGreaterThan(0);
    for (const hook of hooks) expect(tree.path(hook).some((s) => /^turn \d+$/.test(s.name))).toBe(true);

    // Across services in the same trace: requests served over NATS, the store's processors, the relay's publishes, JetStream consumers.
    const named = (pattern: RegExp) => tree.spans.filter((s) => pattern.test(s.name));
    const served = named(/^process \S*hs\.cmd\./);
    expect(served.map((s) => tree.parentOf(s)?.name)).toEqual(expect.arrayContaining([expect.stringMatching(/^request \S*hs\.cmd\.team-manager\./)]));
    expect(named(/^publish \S*hs\.evt\.orchestrator\.run\./).length).toBeGreaterThan(0);
    expect(tree.spans.filter((s) => s.attributes['headspace.processor'] === 'runs').length).toBeGreaterThan(0);
    const consumed = tree.spans.filter((s) => s.attributes['messaging.operation.type'] === 'process');
    expect(consumed.map((s) => tree.parentOf(s)?.name)).toEqual(expect.arrayContaining([expect.stringMatching(/^publish /)]));
    // The SSE frames of the run's events carry its trace id.
    const frames = await waitFor(() => {
      const all = story.messages.map((m) => m.json<{ type: string; traceId?: string; data: { runId?: string } }>()).filter((f) => f.data.runId === runId);
      return all.some((f) => f.type === 'run.completed') ? all : undefined;
    }, { timeoutMs: 30_000, message: 'run.completed on the stream' });
    story.close();
    expect(new Set(frames.map((f) => f.traceId))).toEqual(new Set([tree.traceId]));

    // The request that started the run (a trace of its own) links to the run span.
    const starter = exporter.getFinishedSpans().find((s) => /^process \S*hs\.cmd\.orchestrator\.start-run$/.test(s.name));
    expect(starter?.links.map((l) => l.context.spanId)).toContain(root.spanContext().spanId);
  }, 300_000);

  it('an orchestrator restarted mid-run carries on in the same trace: resumed passes and sessions are beneath the run span, which is still the root', async () => {
    const runId = await startExampleRun('word-stats-restart', 'run-trace-restart');
    // Mid-execution: a builder has called a tool, its session is still running.
    await waitFor(
      async () => {
        const { rows } = await h.db.pool.query(`SELECT 1 FROM orchestrator.events WHERE type = 'session.tool-called' AND stream_id LIKE $1 LIMIT 1`, [`session-${runId}.task.%`]);
        return rows.length > 0 || undefined;
      },
      { timeoutMs: 120_000, intervalMs: 20, message: 'a builder’s tool call' },
    );
    await orchestrator!.close();
    startTracing();
    const restartedAt = Date.now();
    orchestrator = await startOrchestrator();
    await completed('word-stats-restart', runId);

    const tree = await runTrace(runId);
    expect(tree.root.parentSpanContext).toBeUndefined();
    const ofRun = exporter.getFinishedSpans().filter((s) => s.attributes['headspace.run_id'] === runId);
    expect(new Set(ofRun.map((s) => s.spanContext().traceId))).toEqual(new Set([tree.traceId]));
    expect(tree.spans.filter((s) => tree.path(s).at(-1) !== tree.root).map((s) => s.name)).toEqual([]);

    // The new instance's work is in the trace: its passes beneath a phase, its sessions beneath their attempts.
    const after = tree.spans.filter((s) => s.startTime[0] * 1_000 + s.startTime[1] / 1e6 >= restartedAt);
    const passes = after.filter((s) => s.name === 'run pass');
    expect(passes.length).toBeGreaterThan(0);
    for (const pass of passes) expect(tree.parentOf(pass)?.name).toMatch(/^phase /);
    const sessions = after.filter((s) => s.name.startsWith('invoke_agent '));
    expect(sessions.length).toBeGreaterThan(0);
    for (const session of sessions) expect(tree.path(session).map((s) => s.name).slice(1, 3)).toEqual([expect.stringMatching(/ attempt \d+$/), expect.stringMatching(/^phase /)]);
    // The session interrupted by the restart resumed beneath the same attempt span as before it.
    const interrupted = tree.spans.filter((s) => s.name.startsWith('invoke_agent ') && s.startTime[0] * 1_000 < restartedAt && s.endTime[0] * 1_000 + s.endTime[1] / 1e6 >= restartedAt - 5_000);
    const resumedUnderSameAttempt = interrupted.some((before) => sessions.some((s) => tree.parentOf(s) === tree.parentOf(before)));
    expect(resumedUnderSameAttempt).toBe(true);
  }, 360_000);
});
