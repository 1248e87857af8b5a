import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { shutdownTelemetry, startTelemetry } from '../telemetry-sdk';
import { withSpan } from '../tracing';
import { beginStoredSpan, derivedContext, inContext, isSampled, recordStoredSpan, storedContext, storedTraceOf } from './stored-span';

const exported = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter: exported });
/** The spans exported so far (the processor exports once the resource is ready). */
const finished = async () => {
  await processor.forceFlush();
  return exported.getFinishedSpans();
};
const idsOf = (ctx: ReturnType<typeof beginStoredSpan>) => {
  const { traceId, spanId } = trace.getSpanContext(ctx)!;
  return { traceId, spanId };
};

describe('stored spans', () => {
  beforeAll(() => {
    startTelemetry({ serviceName: 'stored-span-spec', env: {}, spanProcessors: [processor] });
  });
  afterAll(() => shutdownTelemetry());
  beforeEach(() => exported.reset());

  it('records a begun span only when it ends, with the ids it was begun with and its own start time, as a root linked from its cause', async () => {
    const startedAt = new Date(Date.now() - 60_000);
    const { stored, cause } = await withSpan('request', {}, (request) => {
      const begun = beginStoredSpan('run r1', { attributes: { 'headspace.run_id': 'r1' } });
      return { stored: storedTraceOf(begun)!, cause: request };
    });
    expect((await finished()).map((s) => s.name)).toEqual(['request']);
    expect((await finished())[0].links.map((l) => l.context.spanId)).toEqual([trace.getSpanContext(storedContext(stored)!)!.spanId]);
    expect(cause.spanContext().traceId).not.toBe(trace.getSpanContext(storedContext(stored)!)!.traceId);

    // Later, anywhere: only the stored form is at hand.
    const run = storedContext(stored)!;
    expect(recordStoredSpan('run r1', { span: run, startTime: startedAt, attributes: { 'headspace.run_id': 'r1' } })).toBe(true);
    const recorded = (await finished()).find((s) => s.name === 'run r1')!;
    expect({ traceId: recorded.spanContext().traceId, spanId: recorded.spanContext().spanId }).toEqual(idsOf(run));
    expect(recorded.parentSpanContext).toBeUndefined();
    expect(recorded.startTime[0]).toBe(Math.floor(startedAt.getTime() / 1000));
  });

  it('derives the same child span for the same key in every process, a different one per key, in the parent’s trace', () => {
    const run = beginStoredSpan('run r2');
    const again = storedContext(storedTraceOf(run))!;
    const phase = derivedContext(run, 'phase:qa:1');
    expect(idsOf(derivedContext(again, 'phase:qa:1'))).toEqual(idsOf(phase));
    expect(idsOf(derivedContext(run, 'phase:qa:2')).spanId).not.toBe(idsOf(phase).spanId);
    expect(idsOf(phase).traceId).toBe(idsOf(run).traceId);
  });

  it('records a derived span beneath its parent, and work done in its context before it ended beneath it', async () => {
    const run = beginStoredSpan('run r3');
    const phase = derivedContext(run, 'phase:execution:1');
    await inContext(phase, () => withSpan('run pass', {}, () => undefined));
    expect(recordStoredSpan('phase execution', { span: phase, parent: run, startTime: new Date(Date.now() - 1_000) })).toBe(true);
    const spans = await finished();
    const [pass, recorded] = ['run pass', 'phase execution'].map((name) => spans.find((s) => s.name === name)!);
    expect(pass.parentSpanContext?.spanId).toBe(recorded.spanContext().spanId);
    expect(recorded.parentSpanContext?.spanId).toBe(idsOf(run).spanId);
    expect(recorded.spanContext().traceId).toBe(idsOf(run).traceId);
  });

  it('records nothing for a trace that was not sampled, or without a stored context', async () => {
    const unsampled = storedContext({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00' })!;
    expect(isSampled(unsampled)).toBe(false);
    expect(recordStoredSpan('run r4', { span: unsampled, startTime: new Date() })).toBe(false);
    expect(storedContext(undefined)).toBeUndefined();
    expect(storedContext({ traceparent: 'not a traceparent' })).toBeUndefined();
    expect(recordStoredSpan('run r5', { span: ROOT_CONTEXT, startTime: new Date() })).toBe(false);
    expect((await finished())).toEqual([]);
  });
});
