import { pageOf, problemSchema, streamEventPayloadSchema } from '@headspace/contracts';
import { z } from 'zod';
import { mcpPaths, mcpTag } from '../mcp/mcp.openapi';
import { opsIngestPaths, opsIngestSecuritySchemes, opsIngestTag } from '../ops-ingest/ops-ingest.openapi';
import { pathParams, type ApiRoute } from '../routes/api-route';

type JsonSchema = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  return json;
};

/** Drops the path parameters from a body schema (they come from the URL), through unions too. */
function withoutProperties(schema: JsonSchema, names: string[]): JsonSchema {
  const copy: JsonSchema = { ...schema };
  if (copy.properties) {
    copy.properties = Object.fromEntries(Object.entries(copy.properties as JsonSchema).filter(([k]) => !names.includes(k)));
  }
  if (Array.isArray(copy.required)) copy.required = (copy.required as string[]).filter((k) => !names.includes(k));
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(copy[key])) copy[key] = (copy[key] as JsonSchema[]).map((s) => withoutProperties(s, names));
  }
  return copy;
}

function propertySchema(schema: JsonSchema, name: string): JsonSchema {
  return ((schema.properties as Record<string, JsonSchema> | undefined)?.[name] ?? { type: 'string' }) as JsonSchema;
}

function responseSchema(route: ApiRoute): z.ZodType {
  if (!route.list) return route.response;
  const object = route.response as z.ZodObject;
  const items = object.shape[route.list.field] as z.ZodArray;
  return object.omit({ [route.list.field]: true } as Record<string, true> as never).extend(pageOf(items.element as z.ZodType).shape);
}

const PROBLEM = { $ref: '#/components/responses/Problem' };

function operation(route: ApiRoute): JsonSchema {
  const names = pathParams(route.path);
  const request = toSchema(route.request, 'input');
  const parameters: JsonSchema[] = names.map((name) => ({ name, in: 'path', required: true, schema: propertySchema(request, name) }));
  if (route.query) {
    const query = toSchema(route.query, 'input');
    const required = (query.required as string[] | undefined) ?? [];
    for (const name of Object.keys((query.properties as JsonSchema | undefined) ?? {})) {
      parameters.push({ name, in: 'query', required: required.includes(name), schema: propertySchema(query, name) });
    }
  }
  if (route.method !== 'GET' && route.method !== 'DELETE') {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Becomes the command id: a retried request with the same key has one effect.',
      schema: { type: 'string', maxLength: 200 },
    });
  }
  const op: JsonSchema = {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    'x-required-role': route.role,
    security: [{ bearerAuth: [] }],
    parameters,
    responses: {
      [String(route.status)]:
        route.status === 204
          ? { description: 'Done' }
          : { description: 'Success', content: { 'application/json': { schema: toSchema(responseSchema(route), 'output') } } },
      400: PROBLEM,
      401: PROBLEM,
      403: PROBLEM,
      404: PROBLEM,
      409: PROBLEM,
      429: PROBLEM,
      503: PROBLEM,
    },
  };
  if (route.body) {
    const content: JsonSchema = { 'application/json': { schema: withoutProperties(request, names) } };
    if (route.body === 'json-or-yaml') content['application/yaml'] = { schema: { type: 'string' } };
    op.requestBody = { required: true, content };
    Object.assign(op.responses as JsonSchema, { 413: PROBLEM, 415: PROBLEM });
  }
  return op;
}

const queryParam = (name: string, description: string) => ({ name, in: 'query', required: false, description, schema: { type: 'string' } });

/** The live event stream is served by src/stream, outside the route table: described by hand. */
const streamOperation: JsonSchema = {
  operationId: 'streamEvents',
  tags: ['stream'],
  summary: 'Server-sent events of the teams the token may see (text/event-stream)',
  'x-required-role': 'viewer',
  security: [{ bearerAuth: [] }],
  parameters: [
    queryParam('team', 'Only this team'),
    queryParam('run', 'Only this run'),
    queryParam('persona', 'Only this persona'),
    queryParam('types', 'Comma list of event types; `category.*` wildcards'),
    queryParam('since', '`new` (default), `all`, or an ISO time'),
    queryParam('access_token', 'The bearer token, for EventSource clients that cannot set headers'),
    { name: 'Last-Event-ID', in: 'header', required: false, description: 'Resume after this event', schema: { type: 'string' } },
  ],
  responses: {
    200: {
      description: 'An endless event stream; each message\'s `data:` line is a `StreamEventPayload` (JSON)',
      content: { 'text/event-stream': { schema: { type: 'string' }, itemSchema: { $ref: '#/components/schemas/StreamEventPayload' } } },
    },
    400: PROBLEM,
    401: PROBLEM,
    403: PROBLEM,
  },
};

/** OpenAPI 3.1 (JSON Schema 2020-12) from the route table and the contracts' zod schemas. */
export function buildOpenApiDocument(routes: readonly ApiRoute[], version = '1.0.0'): JsonSchema {
  const paths: Record<string, JsonSchema> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route) };
  }
  paths['/api/v1/stream'] = { get: streamOperation };
  Object.assign(paths, opsIngestPaths);
  Object.assign(paths, mcpPaths);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Headspace gateway',
      version,
      description: 'REST API of the Headspace control plane. Errors are application/problem+json (RFC 9457) with a stable `code`.',
    },
    servers: [{ url: '/' }],
    tags: [...new Set([...routes.map((r) => r.tag), 'stream', opsIngestTag, mcpTag])].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API token (viewer, operator or admin).' }, ...opsIngestSecuritySchemes },
      schemas: { Problem: toSchema(problemSchema, 'output'), StreamEventPayload: toSchema(streamEventPayloadSchema, 'output') },
      responses: {
        Problem: {
          description: 'A problem (RFC 9457)',
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        },
      },
    },
    security: [{ bearerAuth: [] }],
  };
}
