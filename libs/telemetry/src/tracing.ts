import {
  SpanKind,
  SpanStatusCode,
  context,
  isSpanContextValid,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';

export const TRACER_NAME = 'headspace';

/** A ProxyTracer: safe to capture before startTelemetry(), it delegates once the SDK registers. */
export const tracer = trace.getTracer(TRACER_NAME);

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** Parent context, e.g. one returned by extractContext(); defaults to the active context. */
  parent?: Context;
  /** Start a new trace even if a span is active (links can still point at the cause). */
  root?: boolean;
}

/**
 * Runs fn inside a new active span. A thrown/rejected error is recorded on the span, marks it
 * ERROR (with `error.type`) and is rethrown; otherwise the span ends OK.
 */
export async function withSpan<T>(
  name: string,
  options: SpanOptions,
  fn: (span: Span) => Promise<T> | T,
): Promise<T> {
  const { parent, ...spanOptions } = options;
  return tracer.startActiveSpan(name, spanOptions, parent ?? context.active(), async (span) => {
    try {
      const result = await fn(span);
      span.setStatus({ code: SpanStatusCode.OK });
      return result;
    } catch (error) {
      recordError(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Records an error on a span and marks the span as failed. */
export function recordError(span: Span, error: unknown): void {
  const err = error instanceof Error ? error : new Error(String(error));
  span.recordException(err);
  const code = (err as { code?: unknown }).code;
  span.setAttribute('error.type', typeof code === 'string' ? code : err.name);
  span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
}

/** The trace id of the active span, or undefined when there is none (or it is invalid). */
export function currentTraceId(ctx: Context = context.active()): string | undefined {
  const spanContext = trace.getSpanContext(ctx);
  return spanContext && isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}

/** `{ trace_id, span_id }` of the active span for log lines; empty when no span is active. */
export function traceLogFields(ctx: Context = context.active()): {
  trace_id?: string;
  span_id?: string;
} {
  const spanContext = trace.getSpanContext(ctx);
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

export { SpanKind, SpanStatusCode };
export type { Attributes, Context, Link, Span };
