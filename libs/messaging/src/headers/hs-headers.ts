import { headers as natsHeaders, type MsgHdrs } from '@nats-io/nats-core';
import type { CarrierGetter, CarrierSetter } from '@headspace/telemetry';

/** Header names Headspace puts on NATS messages. Exact case: NATS header lookups are case-sensitive. */
export const HsHeaders = {
  eventId: 'Hs-Event-Id',
  eventType: 'Hs-Event-Type',
  streamId: 'Hs-Stream-Id',
  streamVersion: 'Hs-Stream-Version',
  globalPosition: 'Hs-Global-Position',
  schemaVersion: 'Hs-Schema-Version',
  recordedAt: 'Hs-Recorded-At',
  correlationId: 'Hs-Correlation-Id',
  causationId: 'Hs-Causation-Id',
  commandId: 'Hs-Command-Id',
  /** On a command's reply: the log position its events reached (a position token, see position-token.ts). */
  position: 'Hs-Position',
  /** On a query: answer only once the service's read models have passed these positions. */
  minPosition: 'Hs-Min-Position',
  /** On a query with Hs-Min-Position: how long the caller lets the service wait for them, in ms. */
  maxWaitMs: 'Hs-Max-Wait-Ms',
  traceparent: 'traceparent',
  tracestate: 'tracestate',
} as const;

export { natsHeaders };

/** OpenTelemetry carrier over NATS headers (inject and extract `traceparent` / `tracestate`). */
export function headerCarrier(h: MsgHdrs): CarrierSetter & CarrierGetter {
  return {
    set: (key, value) => h.set(key, value),
    get: (key) => (h.has(key) ? h.get(key) : undefined),
    keys: () => h.keys(),
  };
}

/** Read-only carrier for headers that may be absent. */
export function optionalHeaderCarrier(h: MsgHdrs | undefined): CarrierGetter {
  return h ? headerCarrier(h) : { get: () => undefined, keys: () => [] };
}

/** Plain-object copy of headers (first value of each), for dead letters and handlers. */
export function headersToRecord(h: MsgHdrs | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  for (const key of h.keys()) out[key] = h.get(key);
  return out;
}

export function headerValue(h: MsgHdrs | undefined, key: string): string | undefined {
  if (!h || !h.has(key)) return undefined;
  return h.get(key) || undefined;
}
