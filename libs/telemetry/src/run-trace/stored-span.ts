import { createHash } from 'node:crypto';
import {
  ROOT_CONTEXT,
  SpanStatusCode,
  TraceFlags,
  context,
  isSpanContextValid,
  trace,
  type Attributes,
  type Context,
  type Link,
  type SpanContext,
} from '@opentelemetry/api';
import { extractContext, injectContext, recordCarrier } from '../propagation';
import { tracer } from '../tracing';
import { withSpanIds } from './stored-span-ids';

/** A span context as events store it in their metadata (W3C trace context). */
export interface StoredTrace {
  traceparent: string;
  tracestate?: string;
}

/** The span context stored in an event's metadata, as a context to parent on; undefined when there is none. */
export function storedContext(metadata: { traceparent?: unknown; tracestate?: unknown } | undefined): Context | undefined {
  if (typeof metadata?.traceparent !== 'string') return undefined;
  const carrier: Record<string, string> = { traceparent: metadata.traceparent };
  if (typeof metadata.tracestate === 'string') carrier.tracestate = metadata.tracestate;
  const ctx = extractContext(recordCarrier(carrier), ROOT_CONTEXT);
  const spanContext = trace.getSpanContext(ctx);
  return spanContext && isSpanContextValid(spanContext) ? ctx : undefined;
}

/** Whether the span of ctx is sampled (its descendants are recorded). */
export function isSampled(ctx: Context = context.active()): boolean {
  const spanContext = trace.getSpanContext(ctx);
  return spanContext !== undefined && isSpanContextValid(spanContext) && (spanContext.traceFlags & TraceFlags.SAMPLED) !== 0;
}

/** The active span's context in stored form; undefined when no span is active. */
export function storedTraceOf(ctx: Context = context.active()): StoredTrace | undefined {
  const carrier: Record<string, string> = {};
  injectContext(recordCarrier(carrier), ctx);
  return carrier.traceparent ? { traceparent: carrier.traceparent, ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}) } : undefined;
}

/**
 * A child of `parent` whose span id follows from `key`: every process (a replica, the same one after
 * a restart) names the same span for the same key, so a phase or an attempt that lasts longer than
 * any one process can be parented on before it is recorded, and recorded once it ends.
 */
export function derivedContext(parent: Context, key: string): Context {
  const spanContext = trace.getSpanContext(parent);
  if (!spanContext || !isSpanContextValid(spanContext)) return parent;
  const spanId = createHash('sha256').update(`${spanContext.traceId}/${spanContext.spanId}/${key}`).digest('hex').slice(0, 16);
  const derived: SpanContext = { traceId: spanContext.traceId, spanId, traceFlags: spanContext.traceFlags, isRemote: true, ...(spanContext.traceState ? { traceState: spanContext.traceState } : {}) };
  return trace.setSpanContext(parent, derived);
}

/**
 * Begins a root span whose record is deferred: returns its context (to store and parent on) without
 * ending it. The span is recorded by `recordStoredSpan` when it ends, by whichever process sees the end.
 */
export function beginStoredSpan(name: string, options: { attributes?: Attributes; links?: Link[] } = {}): Context {
  const span = tracer.startSpan(name, { root: true, ...options });
  const begun = { ...span.spanContext(), isRemote: true };
  // The stored span is a trace of its own: the span that began it (a request) links to it.
  trace.getActiveSpan()?.addLink({ context: begun, attributes: { 'headspace.link': 'began' } });
  // Not ended: this span object is dropped, its ids live on in the stored context.
  return trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext(begun));
}

export interface StoredSpanRecord {
  /** The context whose active span is the one to record (as stored or derived). */
  span: Context;
  /** Its parent; none for a root. */
  parent?: Context;
  startTime: Date;
  endTime?: Date;
  attributes?: Attributes;
  /** Set when the span's work failed. */
  error?: string;
}

/**
 * Records a span with the ids of a stored span context, now that it ended. Nothing is recorded when
 * the stored trace was not sampled, or when the tracer provider does not use `storedSpanIds` (a span
 * with other ids would be a stray trace). Returns whether it was recorded.
 */
export function recordStoredSpan(name: string, record: StoredSpanRecord): boolean {
  const wanted = trace.getSpanContext(record.span);
  if (!wanted || !isSpanContextValid(wanted) || (wanted.traceFlags & TraceFlags.SAMPLED) === 0) return false;
  const parentContext = record.parent ? trace.getSpanContext(record.parent) : undefined;
  if (parentContext && parentContext.traceId !== wanted.traceId) return false;
  const span = withSpanIds(wanted, () =>
    tracer.startSpan(name, { startTime: record.startTime, ...(record.attributes ? { attributes: record.attributes } : {}), ...(record.parent ? {} : { root: true }) }, record.parent ?? ROOT_CONTEXT),
  );
  const got = span.spanContext();
  if (got.traceId !== wanted.traceId || got.spanId !== wanted.spanId || !span.isRecording()) return false;
  span.setStatus(record.error ? { code: SpanStatusCode.ERROR, message: record.error } : { code: SpanStatusCode.OK });
  span.end(record.endTime ?? new Date());
  return true;
}

/** Runs fn with ctx active (e.g. a stored context, so what fn appends and calls continues its trace). */
export function inContext<T>(ctx: Context | undefined, fn: () => T): T {
  return ctx ? context.with(ctx, fn) : fn();
}
