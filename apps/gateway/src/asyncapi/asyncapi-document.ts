import { cloudEventDataSchema, toCloudEvent, type EventEnvelope } from '@headspace/messaging';
import type { EventDefinition } from '@headspace/contracts';
import { cloudEventJsonSchema, eventEnvelopeJsonSchema, natsHeadersJsonSchema, toJsonSchema } from './envelope-schemas';
import { exampleFromSchema } from './example-from-schema';

type JsonSchema = Record<string, unknown>;

export const STREAM_CHANNEL = 'stream';
export const messageKey = (e: Pick<EventDefinition, 'type' | 'schemaVersion'>) => `${e.type}.v${e.schemaVersion}`;
export const natsChannelKey = (e: Pick<EventDefinition, 'service' | 'type'>) => `${e.service}.${e.type}`;
const ref = (path: string) => ({ $ref: `#/${path}` });

/** The envelope a sample event rides in; the data is generated from (and checked against) its schema. */
export function exampleEnvelope(e: EventDefinition, data: unknown): EventEnvelope {
  return {
    eventId: '6f1c2a5e-8b3d-4e7f-9a0b-1c2d3e4f5a6b',
    type: e.type,
    streamId: `${e.category}-example`,
    streamVersion: '3',
    globalPosition: '1042',
    schemaVersion: e.schemaVersion,
    data,
    metadata: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    recordedAt: '2026-11-26T09:30:00.000Z',
  };
}

function eventParts(e: EventDefinition) {
  const schema = toJsonSchema(e.schema);
  const envelope = exampleEnvelope(e, exampleFromSchema(schema));
  const key = messageKey(e);
  const dataRef = ref(`components/schemas/${key}`);
  const common = {
    name: e.type,
    title: `${e.type} (v${e.schemaVersion})`,
    contentType: 'application/json',
    'x-headspace-service': e.service,
    'x-headspace-schema-version': e.schemaVersion,
    'x-headspace-subject': e.subject,
  };
  const cloudEvent: JsonSchema = {
    ...common,
    summary: `${e.type} from ${e.service}, as a CloudEvent (SSE stream, webhooks)`,
    payload: {
      allOf: [
        ref('components/schemas/CloudEvent'),
        {
          type: 'object',
          properties: {
            type: { const: `headspace.${e.type}` },
            source: { const: `/headspace/${e.service}` },
            dataschema: { const: cloudEventDataSchema(e.type, e.schemaVersion) },
            hsschemaversion: { const: e.schemaVersion },
            data: dataRef,
          },
        },
      ],
    },
    examples: [{ name: 'example', payload: toCloudEvent(envelope, e.service) }],
  };
  const natsMessage: JsonSchema = {
    ...common,
    summary: `${e.type} from ${e.service}, as the relay publishes it on NATS JetStream`,
    headers: ref('components/schemas/NatsHeaders'),
    payload: {
      allOf: [
        ref('components/schemas/EventEnvelope'),
        { type: 'object', properties: { type: { const: e.type }, schemaVersion: { const: e.schemaVersion }, data: dataRef } },
      ],
    },
    examples: [{ name: 'example', payload: envelope }],
  };
  return { key, schema, cloudEvent, natsMessage };
}

/**
 * AsyncAPI 3.0 of every published event, from the zod contracts. Per event version: its data
 * schema (`components/schemas/<type>.v<n>`), its CloudEvent message (`components/messages/<type>.v<n>`,
 * what a CloudEvent's `dataschema` names) and its NATS message; channels are the NATS subjects and
 * the SSE stream; every operation is a `receive` (subscribers only listen).
 */
export function buildAsyncApiDocument(events: readonly EventDefinition[], version = '1.0.0'): JsonSchema {
  const schemas: Record<string, JsonSchema> = { CloudEvent: cloudEventJsonSchema, EventEnvelope: eventEnvelopeJsonSchema, NatsHeaders: natsHeadersJsonSchema };
  const messages: Record<string, JsonSchema> = {};
  const channels: Record<string, JsonSchema> = {};
  const operations: Record<string, JsonSchema> = {};
  const streamMessages: Record<string, JsonSchema> = {};
  for (const e of [...events].sort((a, b) => a.subject.localeCompare(b.subject))) {
    const { key, schema, cloudEvent, natsMessage } = eventParts(e);
    const channel = natsChannelKey(e);
    schemas[key] = schema;
    messages[key] = cloudEvent;
    streamMessages[key] = ref(`components/messages/${key}`);
    channels[channel] = {
      address: e.subject,
      title: e.type,
      description: `JetStream stream HS_EVT_${e.service.replace(/-/g, '_').toUpperCase()}; message id = event id.`,
      servers: [ref('servers/nats')],
      messages: { [key]: natsMessage },
    };
    operations[`receive.${channel}`] = {
      action: 'receive',
      channel: ref(`channels/${channel}`),
      summary: `Subscribe to ${e.type}`,
      messages: [ref(`channels/${channel}/messages/${key}`)],
    };
  }
  channels[STREAM_CHANNEL] = {
    address: '/api/v1/stream',
    title: 'Live event stream (SSE)',
    description:
      'Server-Sent Events of the teams the token may see; each message `data` is a CloudEvent. Filters: `team`, `run`, `persona`, `types`; resume with `Last-Event-ID` or `since`.',
    servers: [ref('servers/gateway')],
    messages: streamMessages,
  };
  operations[`receive.${STREAM_CHANNEL}`] = {
    action: 'receive',
    channel: ref(`channels/${STREAM_CHANNEL}`),
    summary: 'Follow the live event stream',
    security: [ref('components/securitySchemes/bearerAuth')],
    messages: Object.keys(streamMessages).map((key) => ref(`channels/${STREAM_CHANNEL}/messages/${key}`)),
  };
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Headspace events',
      version,
      description:
        'Every event the Headspace services append to their logs, with its schema and schema version. A change to an event schema comes with a new schemaVersion (message `<type>.v<n>`). Outside Headspace events arrive as CloudEvents 1.0 (`type` = `headspace.<type>`, `source` = `/headspace/<service>`).',
    },
    defaultContentType: 'application/json',
    servers: {
      nats: { host: 'localhost:4222', protocol: 'nats', description: 'NATS JetStream (NATS_URL of the deployment); subjects are prefixed by HS_NAMESPACE when one is set.' },
      gateway: {
        host: 'localhost:3000',
        protocol: 'http',
        description: 'The Headspace gateway (HTTP_PORT).',
        security: [ref('components/securitySchemes/bearerAuth')],
      },
    },
    channels,
    operations,
    components: {
      schemas,
      messages,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API token (viewer or above); EventSource clients may pass `?access_token=`.' } },
    },
  };
}
