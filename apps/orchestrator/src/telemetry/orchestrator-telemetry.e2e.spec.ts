import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTeam, getSpend, importManifest, sessionStreamId } from '@headspace/contracts';
import type { EventStore } from '@headspace/event-store';
import { shutdownTelemetry, startTelemetry } from '@headspace/telemetry';
import { metricValue, scrapeMetrics } from '@headspace/testing';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real services a session talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { CostGovernorHarness } from '../../../cost-governor/src/testing/cost-governor-harness';
import type { SessionSupervisor } from '../sessions/session-supervisor';
import { startSessionsOnSimulator } from '../sessions/testing/sessions-on-simulator.harness';

const team = 'telemetry';
const persona = 'con'; // the shipped simulator scenario for `implement-task` is Con's
const MANIFEST = `team: ${team}
description: The orchestrator telemetry spec's team
members:
  - name: ${persona}
    role: Builds small helpers test-first
    tools: [Read, Write, Edit, "Bash(node:*)"]
    owns: ["src/**", "test/**"]
`;

const exporter = new InMemorySpanExporter();
let h: CostGovernorHarness;
let supervisor: SessionSupervisor;
let store: EventStore;
let root: string;

beforeAll(async () => {
  startTelemetry({ serviceName: 'orchestrator-telemetry-spec', spanProcessors: [new SimpleSpanProcessor({ exporter })], env: {} });
  root = await mkdtemp(join(tmpdir(), 'hs-telemetry-'));
  ({ h, supervisor, store } = await startSessionsOnSimulator({ name: 'otel', root, scenarios: join(__dirname, '..', 'sessions', 'testing', 'scenarios') }));
  await h.send(createTeam, { name: team, leadAgentType: 'general-purpose' });
  await h.send(importManifest, { yaml: MANIFEST });
});
afterAll(async () => {
  await h?.close();
  if (root) await rm(root, { recursive: true, force: true });
  await shutdownTelemetry();
});

describe('orchestrator telemetry on a session (simulator, real cost governor)', () => {
  it("costs every chat span in USD as the cost governor does, and counts the session's turns, tool calls and model usage in metrics", async () => {
    const workspace = await mkdtemp(join(root, 'ws-'));
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    const sessionId = randomUUID();
    const ended = supervisor.whenEnded(sessionId);
    await supervisor.start({
      sessionId,
      team,
      persona,
      kind: 'task',
      model: 'sonnet',
      effort: 'quick',
      runtime: 'built-in',
      simulated: true,
      prompt: 'Add a slugify(text) helper in src/slugify.mjs, test first.',
      workspace,
      situation: 'implement-task',
    });
    const outcome = await ended;
    expect(outcome.exitReason).toBe('completed');

    const startedAt = (s: { startTime: [number, number] }) => s.startTime[0] * 1e9 + s.startTime[1];
    const chats = exporter
      .getFinishedSpans()
      .filter((s) => s.attributes['gen_ai.operation.name'] === 'chat' && s.name.startsWith('chat '))
      .sort((a, b) => startedAt(a) - startedAt(b));
    expect(chats.length).toBeGreaterThanOrEqual(outcome.turns);
    for (const span of chats) {
      expect(span.attributes['headspace.cost.usd']).toEqual(expect.any(Number));
      expect(span.attributes['gen_ai.usage.cache_read.input_tokens']).toEqual(expect.any(Number));
    }
    await h.caughtUp();
    const spend = await h.send(getSpend, { sessionId, groupBy: 'persona' });
    // The session's turns are its chat spans here (the reflection call is not a turn and not billed to it).
    const turnSpans = chats.slice(0, outcome.turns);
    const spansUsd = turnSpans.reduce((sum, s) => sum + (s.attributes['headspace.cost.usd'] as number), 0);
    expect(Number(spend.total.costMicros)).toBeGreaterThan(0);
    expect(Math.round(spansUsd * 1e6)).toBe(Number(spend.total.costMicros));

    const text = await scrapeMetrics();
    expect(metricValue(text, 'headspace_orchestrator_turns_total', { persona, model: 'claude-sonnet-4-6' })).toBe(outcome.turns);
    const toolCalls = (await store.readStream(sessionStreamId(sessionId))).filter((e) => e.type === 'session.tool-called').map((e) => e.data as { tool: string; isError: boolean });
    expect(toolCalls.length).toBeGreaterThan(0);
    for (const tool of new Set(toolCalls.map((c) => c.tool))) {
      for (const isError of [false, true]) {
        const expected = toolCalls.filter((c) => c.tool === tool && c.isError === isError).length;
        expect(metricValue(text, 'headspace_orchestrator_tool_calls_total', { tool, outcome: isError ? 'error' : 'ok' }) ?? 0).toBe(expected);
      }
    }
    expect(metricValue(text, 'headspace_orchestrator_sessions_active', { persona })).toBe(0);
    expect(metricValue(text, 'gen_ai_client_operation_duration_count', { gen_ai_request_model: 'claude-sonnet-4-6', gen_ai_response_model: 'claude-sonnet-4-6' })).toBe(chats.length);
  });
});
