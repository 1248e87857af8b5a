import type { EventMetadata } from '@headspace/contracts';

/**
 * Who asked for a command and within what: the idempotency key and the trace it belongs to. A served
 * request's context (messaging's RequestContext) is one; so is a sweeper's or a bootstrap's.
 */
export interface CommandContext {
  /** The command's idempotency key: event ids derive from it, a retried id appends nothing. */
  commandId?: string;
  correlationId?: string;
  causationId?: string;
  traceparent?: string;
  tracestate?: string;
}

/** The metadata a command's events carry: correlation and causation default to the command itself. */
export function contextMetadata(ctx: CommandContext, commandId: string | undefined): EventMetadata {
  const own = commandId ?? ctx.commandId;
  return {
    ...(ctx.correlationId ?? own ? { correlationId: ctx.correlationId ?? own } : {}),
    ...(ctx.causationId ?? own ? { causationId: ctx.causationId ?? own } : {}),
    ...(ctx.traceparent ? { traceparent: ctx.traceparent } : {}),
    ...(ctx.tracestate ? { tracestate: ctx.tracestate } : {}),
  };
}
