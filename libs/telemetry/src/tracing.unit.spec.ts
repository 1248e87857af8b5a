import { SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractContext, injectContext, recordCarrier } from './propagation';
import { shutdownTelemetry, startTelemetry } from './telemetry-sdk';
import { currentTraceId, traceLogFields, withSpan, type Span } from './tracing';

const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;
const exported = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter: exported });

describe('tracing helpers', () => {
  beforeAll(() => {
    startTelemetry({ serviceName: 'telemetry-spec', env: {}, spanProcessors: [processor] });
  });
  afterAll(() => shutdownTelemetry());

  it('gives a span started inside withSpan a valid trace id, visible as the current one', async () => {
    const seen = await withSpan('unit.work', { attributes: { 'headspace.test': true } }, (span) => ({
      spanTraceId: span.spanContext().traceId,
      current: currentTraceId(),
      logFields: traceLogFields(),
      spanId: span.spanContext().spanId,
    }));
    expect(seen.spanTraceId).toMatch(TRACE_ID);
    expect(seen.current).toBe(seen.spanTraceId);
    expect(seen.logFields).toEqual({ trace_id: seen.spanTraceId, span_id: seen.spanId });
    expect(currentTraceId()).toBeUndefined();
  });

  it('round-trips the trace id through inject and extract', async () => {
    const headers: Record<string, string> = {};
    const sent = await withSpan('unit.publish', {}, (span) => {
      injectContext(recordCarrier(headers));
      return span.spanContext();
    });
    expect(headers.traceparent).toBe(`00-${sent.traceId}-${sent.spanId}-01`);

    const remote = extractContext(recordCarrier(headers));
    expect(trace.getSpanContext(remote)).toMatchObject({
      traceId: sent.traceId,
      spanId: sent.spanId,
      isRemote: true,
    });
    const child = await withSpan('unit.consume', { parent: remote }, (span) => span);
    expect(child.spanContext().traceId).toBe(sent.traceId);
    expect((child as unknown as ReadableSpan).parentSpanContext?.spanId).toBe(sent.spanId);
  });

  it('records a thrown error on the span, marks it ERROR and rethrows it', async () => {
    let captured: Span | undefined;
    const failure = Object.assign(new Error('budget exhausted'), { code: 'BUDGET.EXCEEDED' });
    await expect(
      withSpan('unit.fail', {}, async (span) => {
        captured = span;
        throw failure;
      }),
    ).rejects.toBe(failure);

    const ended = captured as unknown as ReadableSpan;
    expect(ended.ended).toBe(true);
    expect(ended.status).toEqual({ code: SpanStatusCode.ERROR, message: 'budget exhausted' });
    expect(ended.attributes['error.type']).toBe('BUDGET.EXCEEDED');
    expect(ended.events.map((e) => e.name)).toContain('exception');
  });

  it('ends a successful span with status OK', async () => {
    const span = await withSpan('unit.ok', {}, (s) => s);
    expect((span as unknown as ReadableSpan).status.code).toBe(SpanStatusCode.OK);
  });

  it('with an exporter every span is recorded and exported', async () => {
    await processor.forceFlush();
    exported.reset();
    expect(await withSpan('unit.exported', {}, (span) => span.isRecording())).toBe(true);
    await processor.forceFlush();
    expect(exported.getFinishedSpans().map((s) => s.name)).toEqual(['unit.exported']);
  });
});
