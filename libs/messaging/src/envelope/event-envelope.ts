import { eventMetadataSchema, parseOrThrow, type EventMetadata } from '@headspace/contracts';
import type { RecordedEvent } from '@headspace/event-store';
import { z } from 'zod';

/**
 * The body of every event message on JetStream: the event with its envelope, JSON, UTF-8.
 * Positions and versions are decimal strings (int8 must never pass through a JS Number).
 * Headers repeat the routing fields (Hs-Event-Id, Hs-Stream-Id, …) so tools and filters can read
 * them without parsing the body, but the body is the source a consumer decodes.
 */
export interface EventEnvelope {
  eventId: string;
  type: string;
  streamId: string;
  streamVersion: string;
  globalPosition: string;
  /**
   * The id of the transaction that appended it: with `globalPosition`, the event's place in the
   * order processors read the log, so a reader can ask a query to wait until it is projected.
   * Absent in messages relayed before it was added.
   */
  transactionId?: string;
  schemaVersion: number;
  data: unknown;
  metadata: EventMetadata;
  /** ISO-8601. */
  recordedAt: string;
}

const decimal = z.string().regex(/^\d+$/, 'must be a decimal integer string');

export const eventEnvelopeSchema = z.object({
  eventId: z.uuid(),
  type: z.string().min(1),
  streamId: z.string().min(1),
  streamVersion: decimal,
  globalPosition: decimal,
  transactionId: decimal.optional(),
  schemaVersion: z.number().int().positive(),
  data: z.unknown(),
  metadata: eventMetadataSchema.default({}),
  recordedAt: z.iso.datetime({ offset: true }),
});

export function toEnvelope(event: RecordedEvent): EventEnvelope {
  return {
    eventId: event.eventId,
    type: event.type,
    streamId: event.streamId,
    streamVersion: event.streamVersion.toString(),
    globalPosition: event.globalPosition.toString(),
    transactionId: event.transactionId,
    schemaVersion: event.schemaVersion,
    data: event.data,
    metadata: event.metadata ?? {},
    recordedAt: event.recordedAt.toISOString(),
  };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeEnvelope(envelope: EventEnvelope): Uint8Array {
  return encoder.encode(JSON.stringify(envelope));
}

/** Event as a consumer's handler receives it: the envelope with bigints and a Date restored. */
export interface EnvelopeEvent<T = unknown> {
  eventId: string;
  type: string;
  streamId: string;
  streamVersion: bigint;
  globalPosition: bigint;
  /** See EventEnvelope.transactionId. */
  transactionId?: string;
  schemaVersion: number;
  data: T;
  metadata: EventMetadata;
  recordedAt: Date;
}

/** Parses a message body; a ValidationError (CONTRACTS.VALIDATION_FAILED) names the bad field. */
export function decodeEnvelope(body: Uint8Array): EnvelopeEvent {
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(body));
  } catch {
    json = undefined;
  }
  const e = parseOrThrow(eventEnvelopeSchema, json, 'event envelope');
  return {
    eventId: e.eventId,
    type: e.type,
    streamId: e.streamId,
    streamVersion: BigInt(e.streamVersion),
    globalPosition: BigInt(e.globalPosition),
    ...(e.transactionId !== undefined ? { transactionId: e.transactionId } : {}),
    schemaVersion: e.schemaVersion,
    data: e.data,
    metadata: e.metadata,
    recordedAt: new Date(e.recordedAt),
  };
}
