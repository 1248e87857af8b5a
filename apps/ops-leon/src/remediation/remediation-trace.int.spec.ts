import { randomBytes } from 'node:crypto';
import { createOpsProject, createTeam, exceptionGroupStreamId, startRun } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { encodeJson } from '@headspace/messaging';
import { startTelemetry, withSpan } from '@headspace/telemetry';
import { waitFor } from '@headspace/testing';
import type { Subscription } from '@nats-io/nats-core';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real team-manager and cost-governor Leon works with; apps never import each other outside tests.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startCostGovernor, type CostGovernorHarness } from '../../../cost-governor/src/testing/cost-governor-harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startTeamManager, type TeamManagerHarness } from '../../../team-manager/src/testing/team-manager-harness';
import { startOpsLeon, type OpsLeonHarness } from '../testing/ops-leon-harness';
import { fixRunId } from './remediation.policy';

// Every span of the test process; a harness's shutdown stops telemetry, which this processor outlives.
const spans: ReadableSpan[] = [];
const collect: SpanProcessor = { onStart: () => undefined, onEnd: (span) => void spans.push(span), forceFlush: async () => undefined, shutdown: async () => undefined };
startTelemetry({ serviceName: 'remediation-trace-spec', spanProcessors: [collect] });

let tm: TeamManagerHarness;
let cg: CostGovernorHarness;
let ol: OpsLeonHarness;
let orchestrator: Subscription;
/** The trace context each start-run request arrived with, by run id. */
const traceOfRun = new Map<string, string | undefined>();

beforeAll(async () => {
  tm = await startTeamManager('oltrace');
  cg = await startCostGovernor('oltrace', { HS_NAMESPACE: tm.namespace });
  ol = await startOpsLeon('oltrace', { HS_NAMESPACE: tm.namespace, HS_OPS_TRIAGE: 'off', HS_OPS_REMEDIATION_POLL_MS: '50', LOG_LEVEL: 'error' });
  orchestrator = ol.nc.subscribe(startRun.subject, {
    queue: 'orchestrator',
    callback: (_error, msg) => {
      const body = startRun.request.parse(msg.json());
      traceOfRun.set(body.runId!, msg.headers?.get('traceparent'));
      msg.respond(encodeJson({ ok: true, result: { runId: body.runId, streamVersion: '1' } }));
    },
  });
  await ol.nc.flush();
  await tm.send(createTeam, { name: 'red' });
}, 120_000);

afterAll(async () => {
  orchestrator?.unsubscribe();
  await ol?.close();
  await cg?.close();
  await tm?.close();
});

const now = () => new Date().toISOString();

describe('Leon’s remediation in the exception group’s trace', { timeout: 90_000 }, () => {
  it('makes each remediation step a span beneath the trace the group was opened in, and starts the fix run from inside its step', async () => {
    const project = `shop${randomBytes(3).toString('hex')}`;
    await ol.send(createOpsProject, { project, repository: '/srv/shop', team: 'red', trusted: true, testCommand: 'node --test' });
    const groupId = `grp_${randomBytes(12).toString('hex')}`;
    const base = { groupId, project };
    // The group is opened (and triaged) in a trace of its own, as ingest does.
    const opened = await withSpan('ingest exception', {}, async (span) => {
      await ol.app.get(EventStore).append(exceptionGroupStreamId(groupId), [
        { type: 'group.opened', data: { ...base, projectId: '1', fingerprint: randomBytes(16).toString('hex'), type: 'TypeError', title: 'x is undefined', culprit: 'src/cart.js in total', level: 'warning', firstEventId: randomBytes(16).toString('hex'), at: now() } },
        { type: 'group.analysing-started', data: { ...base, from: 'NEW', to: 'ANALYSING', by: 'leon', at: now() } },
        { type: 'group.triaged', data: { ...base, from: 'ANALYSING', to: 'ANALYSING', by: 'leon', severity: 'warning', domain: 'backend', persona: 'con', autoFixable: true, complex: false, hypothesis: 'h', approach: 'a', source: 'model', at: now() } },
      ], { expected: 'no-stream' });
      return span.spanContext();
    });
    const runId = fixRunId(groupId, 1);
    await waitFor(() => traceOfRun.has(runId) || undefined, { timeoutMs: 30_000, message: 'the fix run to be started' });

    const steps = await waitFor(() => {
      const found = spans.filter((s) => s.name.startsWith('remediation ') && s.attributes['headspace.group_id'] === groupId);
      return found.length >= 2 ? found : undefined;
    }, { timeoutMs: 10_000, message: 'the remediation steps’ spans' });
    for (const step of steps) {
      expect(step.spanContext().traceId).toBe(opened.traceId);
      expect(step.parentSpanContext?.spanId).toBe(opened.spanId);
    }
    // The fix run was asked for from inside a step: its request carries the step's trace.
    const asked = spans.find((s) => s.name.endsWith('hs.cmd.orchestrator.start-run') && s.name.startsWith('request ') && s.spanContext().traceId === opened.traceId);
    expect(steps.map((s) => s.spanContext().spanId)).toContain(asked?.parentSpanContext?.spanId);
    expect(traceOfRun.get(runId)).toContain(opened.traceId);
  });
});
