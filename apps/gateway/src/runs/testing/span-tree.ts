import type { ReadableSpan } from '@opentelemetry/sdk-trace';

/** One trace of finished spans, navigable by parent. */
export interface SpanTree {
  traceId: string;
  root: ReadableSpan;
  spans: ReadableSpan[];
  parentOf(span: ReadableSpan): ReadableSpan | undefined;
  childrenOf(span: ReadableSpan): ReadableSpan[];
  /** The span, its parent, … up to the last recorded ancestor. */
  path(span: ReadableSpan): ReadableSpan[];
}

/** The trace of the span named `rootName`, from every finished span. */
export function spanTree(all: ReadableSpan[], rootName: string): SpanTree {
  const root = all.find((s) => s.name === rootName);
  if (!root) throw new Error(`no span named ${rootName}`);
  const traceId = root.spanContext().traceId;
  const spans = all.filter((s) => s.spanContext().traceId === traceId);
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const parentOf = (span: ReadableSpan) => (span.parentSpanContext ? byId.get(span.parentSpanContext.spanId) : undefined);
  return {
    traceId,
    root,
    spans,
    parentOf,
    childrenOf: (span) => spans.filter((s) => s.parentSpanContext?.spanId === span.spanContext().spanId),
    path: (span) => {
      const path = [span];
      for (let p = parentOf(span); p && path.length < 100; p = parentOf(p)) path.push(p);
      return path;
    },
  };
}
