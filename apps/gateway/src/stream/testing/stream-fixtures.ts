import { randomUUID } from 'node:crypto';
import { eventSubject } from '@headspace/contracts';
import { encodeEnvelope, type EventEnvelope } from '@headspace/messaging';
import type { JetStreamClient } from '@nats-io/jetstream';

/**
 * Publishes an event the way a service's relay does (envelope body, `Nats-Msg-Id` = event id) into
 * the real JetStream stream of `service`. For streams of services a test does not boot. `eventId`
 * with another `msgId` stores an event again, as a relay restarted after the duplicate window did.
 */
export async function publishEvent(
  js: JetStreamClient,
  service: string,
  type: string,
  data: Record<string, unknown>,
  opts: { streamId?: string; traceparent?: string; eventId?: string; msgId?: string } = {},
): Promise<{ eventId: string; seq: number }> {
  const envelope: EventEnvelope = {
    eventId: opts.eventId ?? randomUUID(),
    type,
    streamId: opts.streamId ?? `${type.split('.')[0]}-${String(data.team ?? 'x')}`,
    streamVersion: '1',
    globalPosition: '1',
    schemaVersion: 1,
    data,
    metadata: opts.traceparent ? { traceparent: opts.traceparent } : {},
    recordedAt: new Date().toISOString(),
  };
  const ack = await js.publish(eventSubject(service, type), encodeEnvelope(envelope), { msgID: opts.msgId ?? envelope.eventId });
  return { eventId: envelope.eventId, seq: ack.seq };
}
