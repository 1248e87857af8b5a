import { eventEnvelopeSchema, HsHeaders } from '@headspace/messaging';
import { z } from 'zod';

type JsonSchema = Record<string, unknown>;

export const toJsonSchema = (schema: z.ZodType): JsonSchema => {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' }) as JsonSchema;
  return json;
};

const decimal = { type: 'string', pattern: '^\\d+$' };

/** CloudEvents 1.0 structured JSON as libs/messaging's toCloudEvent writes it (SSE, webhooks, SDK). */
export const cloudEventJsonSchema: JsonSchema = {
  type: 'object',
  description: 'CloudEvents 1.0, structured JSON mode. `data` is the Headspace event; `dataschema` names its message in this document.',
  required: ['specversion', 'id', 'source', 'type', 'subject', 'time', 'datacontenttype', 'dataschema', 'data', 'hsposition', 'hsstreamversion', 'hsschemaversion'],
  properties: {
    specversion: { const: '1.0' },
    id: { type: 'string', format: 'uuid', description: 'The event id: the same on every delivery of the event (deduplicate by it).' },
    source: { type: 'string', pattern: '^/headspace/[a-z-]+$', description: '`/headspace/<service>`' },
    type: { type: 'string', pattern: '^headspace\\.', description: '`headspace.<category>.<name>`' },
    subject: { type: 'string', description: 'The event stream (aggregate) the event belongs to.' },
    time: { type: 'string', format: 'date-time' },
    datacontenttype: { const: 'application/json' },
    dataschema: { type: 'string', description: '`#/components/messages/<type>.v<schemaVersion>`' },
    data: {},
    traceparent: { type: 'string', description: 'W3C Trace Context (distributed tracing extension).' },
    tracestate: { type: 'string' },
    hsposition: { ...decimal, description: 'Global log position: resume or backfill from here.' },
    hsstreamversion: decimal,
    hsschemaversion: { type: 'integer', minimum: 1 },
  },
};

/** The JSON body of every event message on JetStream (libs/messaging event-envelope.ts). */
export const eventEnvelopeJsonSchema: JsonSchema = {
  ...toJsonSchema(eventEnvelopeSchema),
  description: 'The event with its envelope. Positions and versions are decimal strings (int8).',
};

const headerNames = [HsHeaders.eventId, HsHeaders.eventType, HsHeaders.streamId, HsHeaders.streamVersion, HsHeaders.globalPosition, HsHeaders.schemaVersion, HsHeaders.recordedAt];

/** NATS headers the relay sets (they repeat envelope fields; `Nats-Msg-Id` is the event id, for JetStream dedupe). */
export const natsHeadersJsonSchema: JsonSchema = {
  type: 'object',
  properties: Object.fromEntries(
    [...headerNames, 'Nats-Msg-Id', HsHeaders.correlationId, HsHeaders.causationId, HsHeaders.commandId, HsHeaders.traceparent, HsHeaders.tracestate].map((name) => [name, { type: 'string' }]),
  ),
  required: [...headerNames, 'Nats-Msg-Id'],
};
