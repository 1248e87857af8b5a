/** Request metadata a request handler receives (from the Hs-* headers). */
export interface RequestContext {
  subject: string;
  kind: 'command' | 'query';
  /** Idempotency key of a command (Hs-Command-Id); derive event ids from it. Undefined for queries. */
  commandId?: string;
  correlationId: string;
  causationId?: string;
  /** Trace context of the SERVER span, to store in appended events' metadata. */
  traceparent?: string;
  tracestate?: string;
  headers: Record<string, string>;
}
