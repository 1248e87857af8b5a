import { createHash } from 'node:crypto';
import { decodeEnvelope, toCloudEvent } from '@headspace/messaging';
import type { JsMsg } from '@nats-io/jetstream';
import { teamOf } from '../stream/stream-event';
import type { NewDelivery } from './webhook-subscriptions.repository';
import { subscriptionMatches, type SubscriptionFilter } from './subscription.policy';

export const deliveryIdOf = (subscriptionId: string, eventId: string, origin: string) =>
  `whd_${createHash('sha256').update(`${subscriptionId}\u0000${eventId}\u0000${origin}`).digest('hex').slice(0, 24)}`;

/** `hs.evt.<service>.…` (after any namespace prefix): the service that owns the event. */
const serviceOf = (subject: string) => /(?:^|\.)hs\.evt\.([^.]+)\./.exec(subject)?.[1] ?? 'unknown';

/**
 * The deliveries one JetStream message makes for the given subscriptions: the body is the event in
 * CloudEvents structured form, built once and signed per subscription by the sweeper. A message that
 * is not an event envelope matches nothing.
 */
export function deliveriesFor(msg: Pick<JsMsg, 'data' | 'subject' | 'seq'>, streamKey: string, subscriptions: readonly SubscriptionFilter[], origin: string): NewDelivery[] {
  if (!subscriptions.length) return [];
  let envelope: ReturnType<typeof decodeEnvelope>;
  try {
    envelope = decodeEnvelope(msg.data);
  } catch {
    return [];
  }
  const data = (envelope.data && typeof envelope.data === 'object' ? envelope.data : {}) as Record<string, unknown>;
  const team = teamOf(envelope.type, envelope.streamId, data) ?? (typeof envelope.metadata.team === 'string' ? envelope.metadata.team : undefined);
  const project = typeof data.project === 'string' ? data.project : undefined;
  const matching = subscriptions.filter((s) => subscriptionMatches(s, { type: envelope.type, team, project }));
  if (!matching.length) return [];
  const wire = {
    ...envelope,
    streamVersion: envelope.streamVersion.toString(),
    globalPosition: envelope.globalPosition.toString(),
    recordedAt: envelope.recordedAt.toISOString(),
  };
  const body = JSON.stringify(toCloudEvent(wire, serviceOf(msg.subject)));
  return matching.map((s) => ({
    deliveryId: deliveryIdOf(s.id, envelope.eventId, origin),
    subscriptionId: s.id,
    streamKey,
    streamSeq: msg.seq,
    eventId: envelope.eventId,
    eventType: envelope.type,
    origin,
    body,
  }));
}
