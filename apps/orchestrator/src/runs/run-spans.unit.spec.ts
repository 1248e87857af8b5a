import { beginStoredSpan, shutdownTelemetry, startTelemetry, storedTraceOf, type Context } from '@headspace/telemetry';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RunSpans, phaseSegments } from './run-spans';
import type { RunEvent } from './run.state';

const exported = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter: exported });
const finished = async () => {
  await processor.forceFlush();
  return exported.getFinishedSpans();
};
const spanIdOf = (ctx: Context | undefined) => trace.getSpanContext(ctx!)!.spanId;

const at = (minute: number) => `2026-11-26T10:${String(minute).padStart(2, '0')}:00.000Z`;
// Only what folding the run reads: the phase follows from these.
const ev = (type: string, data: Record<string, unknown>) => ({ type, data: { runId: 'r1', ...data } }) as unknown as RunEvent;
const started = ev('run.started', { team: 'word-stats', mode: 'v3', limits: { maxQaRounds: 2 }, startedAt: at(0) });
const workshop = ev('run.session-started', { sessionId: 'r1.workshop.r1.a1', purpose: 'workshop', persona: 'robbo', attempt: 1, at: at(1) });
const workshopEnded = ev('run.session-ended', { sessionId: 'r1.workshop.r1.a1', exitReason: 'completed', summary: 'spec', at: at(5) });
const drafted = ev('run.spec-drafted', { spec: { title: 'spec' }, at: at(5) });
const accepted = ev('run.spec-accepted', { by: 'operator', at: at(7) });
const failed = ev('run.failed', { reason: 'no pool', at: at(9) });

describe('the spans of a run', () => {
  beforeAll(() => {
    startTelemetry({ serviceName: 'run-spans-spec', env: {}, spanProcessors: [processor] });
  });
  afterAll(() => shutdownTelemetry());
  beforeEach(() => exported.reset());

  it('folds the run’s phases from its events, each with the times its events give and a count of its comings', () => {
    expect(phaseSegments([started, workshop, workshopEnded, drafted, accepted, failed])).toEqual([
      { phase: 'workshop', occurrence: 1, start: 0, end: 3, startedAt: at(0), endedAt: at(5) },
      { phase: 'spec-review', occurrence: 1, start: 3, end: 4, startedAt: at(5), endedAt: at(7) },
      { phase: 'decomposition', occurrence: 1, start: 4, end: 5, startedAt: at(7), endedAt: at(9) },
    ]);
  });

  it('names the same phase and attempt spans in another process (only the stored run context in common)', () => {
    const stored = storedTraceOf(beginStoredSpan('run r1'));
    const here = RunSpans.of('r1', stored);
    const there = RunSpans.of('r1', { ...stored });
    const events = [started, workshop];
    expect(spanIdOf(there.phase(events))).toBe(spanIdOf(here.phase(events)));
    expect(spanIdOf(there.attempt(events, 'r1.workshop.r1.a1'))).toBe(spanIdOf(here.attempt(events, 'r1.workshop.r1.a1')));
    expect(spanIdOf(here.phase([...events, workshopEnded, drafted]))).not.toBe(spanIdOf(here.phase(events)));
    expect(RunSpans.of('r1', {}).phase(events)).toBeUndefined();
  });

  it('records each span when the events that end it are appended: the phase, the attempt beneath the phase it began in, the run at the root', async () => {
    const stored = storedTraceOf(beginStoredSpan('run r1'));
    const spans = RunSpans.of('r1', stored);
    const history = [started, workshop];
    spans.ended(history, [workshopEnded, drafted]);
    const firstPhase = spans.phase(history);
    let recorded = await finished();
    expect(recorded.map((s) => s.name).sort()).toEqual(['phase workshop', 'workshop attempt 1']);
    const phase = recorded.find((s) => s.name === 'phase workshop')!;
    const attempt = recorded.find((s) => s.name === 'workshop attempt 1')!;
    expect(phase.spanContext().spanId).toBe(spanIdOf(firstPhase));
    expect(phase.parentSpanContext?.spanId).toBe(spanIdOf(spans.run));
    expect(attempt.spanContext().spanId).toBe(spanIdOf(spans.attempt(history, 'r1.workshop.r1.a1')));
    expect(attempt.parentSpanContext?.spanId).toBe(phase.spanContext().spanId);
    expect(attempt.attributes).toMatchObject({ 'headspace.session_id': 'r1.workshop.r1.a1', 'headspace.persona': 'robbo', 'headspace.exit_reason': 'completed' });
    expect(new Date(attempt.startTime[0] * 1000).toISOString()).toBe(at(1));

    exported.reset();
    spans.ended([...history, workshopEnded, drafted], [accepted, failed]);
    recorded = await finished();
    expect(recorded.map((s) => s.name).sort()).toEqual(['phase decomposition', 'phase spec-review', 'run r1']);
    const run = recorded.find((s) => s.name === 'run r1')!;
    expect(run.parentSpanContext).toBeUndefined();
    expect(run.spanContext().spanId).toBe(spanIdOf(spans.run));
    expect(run.status).toMatchObject({ code: 2, message: 'no pool' });
    expect([run.startTime[0], run.endTime[0]].map((s) => new Date(s * 1000).toISOString())).toEqual([at(0), at(9)]);
  });

  it('records nothing for events that end nothing, or a run started without a trace', async () => {
    const spans = RunSpans.of('r1', storedTraceOf(beginStoredSpan('run r1')));
    spans.ended([started], [workshop]);
    RunSpans.of('r1', undefined).ended([started, workshop], [workshopEnded, drafted]);
    expect(await finished()).toEqual([]);
  });
});
