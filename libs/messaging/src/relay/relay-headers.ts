import type { RecordedEvent } from '@headspace/event-store';
import type { MsgHdrs } from '@nats-io/nats-core';
import { HsHeaders, natsHeaders } from '../headers/hs-headers';

/** The routing headers of a relayed event (trace headers are injected separately, from the span). */
export function relayHeaders(event: RecordedEvent): MsgHdrs {
  const h = natsHeaders();
  h.set(HsHeaders.eventId, event.eventId);
  h.set(HsHeaders.eventType, event.type);
  h.set(HsHeaders.streamId, event.streamId);
  h.set(HsHeaders.streamVersion, event.streamVersion.toString());
  h.set(HsHeaders.globalPosition, event.globalPosition.toString());
  h.set(HsHeaders.schemaVersion, String(event.schemaVersion));
  h.set(HsHeaders.recordedAt, event.recordedAt.toISOString());
  const meta = event.metadata ?? {};
  if (meta.correlationId) h.set(HsHeaders.correlationId, meta.correlationId);
  if (meta.causationId) h.set(HsHeaders.causationId, meta.causationId);
  if (meta.commandId) h.set(HsHeaders.commandId, meta.commandId);
  return h;
}
