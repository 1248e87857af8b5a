import { z } from 'zod';
import { plainExceptionSchema } from './plain-report';

type JsonSchema = Record<string, unknown>;

/**
 * The ingest routes live outside the route table (raw bodies, key auth), so they are described by
 * hand here, as the event stream is; buildOpenApiDocument merges these in.
 */
const PROBLEM = { $ref: '#/components/responses/Problem' };
const refusals = { 400: PROBLEM, 401: PROBLEM, 404: PROBLEM, 413: PROBLEM, 415: PROBLEM, 429: PROBLEM, 503: PROBLEM };

const encodingHeader = {
  name: 'Content-Encoding',
  in: 'header',
  required: false,
  description: 'gzip, deflate or br; the decompressed body is bounded by HS_OPS_INGEST_MAX_BYTES (else 413)',
  schema: { type: 'string' },
};

const { $schema: _dialect, ...plainBody } = z.toJSONSchema(plainExceptionSchema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as JsonSchema;

const answer = (properties: JsonSchema, required: string[]) => ({ type: 'object', properties, required });

const sentryParameters = [
  { name: 'projectId', in: 'path', required: true, description: "The project's numeric DSN id", schema: { type: 'string', pattern: '^[1-9][0-9]{0,17}$' } },
  { name: 'sentry_key', in: 'query', required: false, description: 'The DSN public key (the Node SDK sends it here)', schema: { type: 'string' } },
  {
    name: 'X-Sentry-Auth',
    in: 'header',
    required: false,
    description: 'Sentry sentry_key=<public key>, sentry_version=7, … (or the envelope header `dsn`)',
    schema: { type: 'string' },
  },
  encodingHeader,
];

export const opsIngestTag = 'ops-ingest';

export const opsIngestSecuritySchemes: JsonSchema = {
  ingestKey: { type: 'apiKey', in: 'header', name: 'X-Headspace-Ingest-Key', description: "A project's ingest key (DSN public key): it can only ingest." },
  sentryAuth: { type: 'apiKey', in: 'header', name: 'X-Sentry-Auth', description: 'Sentry sentry_key=<DSN public key>, sentry_version=7' },
};

export const opsIngestPaths: Record<string, JsonSchema> = {
  '/api/v1/ops/projects/{project}/exceptions': {
    post: {
      operationId: 'ingestException',
      tags: [opsIngestTag],
      summary: "Report one exception of the project's application (no SDK needed)",
      security: [{ ingestKey: [] }],
      parameters: [{ name: 'project', in: 'path', required: true, schema: { type: 'string' } }, encodingHeader],
      requestBody: { required: true, content: { 'application/json': { schema: plainBody } } },
      responses: {
        202: {
          description: 'Recorded (accepted false: this event id was recorded before, nothing counted twice)',
          content: { 'application/json': { schema: answer({ eventId: { type: 'string' }, groupId: { type: 'string' }, accepted: { type: 'boolean' } }, ['eventId', 'groupId', 'accepted']) } },
        },
        ...refusals,
      },
    },
  },
  '/api/{projectId}/envelope/': {
    post: {
      operationId: 'sentryEnvelope',
      tags: [opsIngestTag],
      summary: 'Sentry envelope endpoint: event items are recorded, other item types accepted and dropped (counted)',
      security: [{ sentryAuth: [] }],
      parameters: sentryParameters,
      requestBody: { required: true, content: { 'application/x-sentry-envelope': { schema: { type: 'string' } } } },
      responses: {
        200: {
          description: 'The envelope was read',
          content: {
            'application/json': {
              schema: answer(
                {
                  id: { type: ['string', 'null'] },
                  accepted: { type: 'integer', description: 'Event items recorded' },
                  dropped: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Other items by type' },
                },
                ['id', 'accepted', 'dropped'],
              ),
            },
          },
        },
        ...refusals,
      },
    },
  },
  '/api/{projectId}/store/': {
    post: {
      operationId: 'sentryStore',
      tags: [opsIngestTag],
      summary: 'Legacy Sentry store endpoint: one event as JSON',
      security: [{ sentryAuth: [] }],
      parameters: sentryParameters,
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: {
        200: { description: 'Recorded', content: { 'application/json': { schema: answer({ id: { type: 'string' } }, ['id']) } } },
        ...refusals,
      },
    },
  },
};
