import type { EventMetadata } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';

/** Correlation, causation and trace context for the events a request appends. */
export function metadataOf(ctx: RequestContext | undefined, commandId: string): EventMetadata {
  return ctx
    ? { correlationId: ctx.correlationId, causationId: ctx.causationId ?? commandId, traceparent: ctx.traceparent, tracestate: ctx.tracestate }
    : { correlationId: commandId, causationId: commandId };
}
