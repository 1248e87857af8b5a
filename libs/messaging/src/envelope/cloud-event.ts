import type { EventEnvelope } from './event-envelope';

/**
 * An event as subscribers outside Headspace receive it (SSE in CloudEvents form, webhooks, the
 * subscriber SDK): CloudEvents 1.0 structured JSON. `type` is the Headspace event type under the
 * `headspace.` prefix, `source` the owning service, `subject` the event's stream; the log position,
 * stream version and schema version ride as extension attributes (lowercase letters and digits only,
 * as the spec requires), and `traceparent` as the distributed-tracing extension.
 */
export interface CloudEvent<T = unknown> {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  subject: string;
  time: string;
  datacontenttype: 'application/json';
  /** `#/components/messages/<type>.v<schemaVersion>` in the AsyncAPI document. */
  dataschema: string;
  data: T;
  traceparent?: string;
  tracestate?: string;
  /** The global log position (decimal string): resume or backfill from here. */
  hsposition: string;
  hsstreamversion: string;
  hsschemaversion: number;
}

export const CLOUD_EVENT_TYPE_PREFIX = 'headspace.';
export const cloudEventSource = (service: string) => `/headspace/${service}`;
export const cloudEventDataSchema = (type: string, schemaVersion: number) => `#/components/messages/${type}.v${schemaVersion}`;

export function toCloudEvent<T = unknown>(envelope: EventEnvelope & { data: T }, service: string): CloudEvent<T> {
  const { traceparent, tracestate } = envelope.metadata as { traceparent?: string; tracestate?: string };
  return {
    specversion: '1.0',
    id: envelope.eventId,
    source: cloudEventSource(service),
    type: `${CLOUD_EVENT_TYPE_PREFIX}${envelope.type}`,
    subject: envelope.streamId,
    time: envelope.recordedAt,
    datacontenttype: 'application/json',
    dataschema: cloudEventDataSchema(envelope.type, envelope.schemaVersion),
    data: envelope.data,
    ...(typeof traceparent === 'string' ? { traceparent } : {}),
    ...(typeof tracestate === 'string' ? { tracestate } : {}),
    hsposition: envelope.globalPosition,
    hsstreamversion: envelope.streamVersion,
    hsschemaversion: envelope.schemaVersion,
  };
}
