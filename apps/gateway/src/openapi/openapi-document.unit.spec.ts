import { describe, expect, it } from 'vitest';
import { apiRoutes } from '../routes/api-routes';
import { buildOpenApiDocument } from './openapi-document';

type Doc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { operationId: string; parameters: Array<{ name: string; in: string }>; responses: Record<string, unknown> }>>;
  components: { securitySchemes: Record<string, { type: string; scheme?: string }> };
};

const doc = buildOpenApiDocument(apiRoutes) as unknown as Doc;

function refs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refs(v, found));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') found.push(v);
      else refs(v, found);
    }
  }
  return found;
}

describe('the OpenAPI document', () => {
  it('has every registered route, with its operationId, under its method and templated path', () => {
    const missing = apiRoutes.filter((r) => doc.paths[r.path.replace(/:(\w+)/g, '{$1}')]?.[r.method.toLowerCase()]?.operationId !== r.operationId);
    expect(missing.map((r) => `${r.method} ${r.path}`)).toEqual([]);
    const documented = Object.values(doc.paths).flatMap((p) => Object.keys(p)).length;
    // Plus the event stream, the three exception ingest routes and MCP, served outside the table.
    expect(documented).toBe(apiRoutes.length + 5);
    expect(doc.paths['/api/v1/stream'].get.operationId).toBe('streamEvents');
    expect(['ingestException', 'sentryEnvelope', 'sentryStore'].map((id) => Object.values(doc.paths).some((p) => p.post?.operationId === id))).toEqual([true, true, true]);
  });

  it('is structurally OpenAPI 3.1: version, info, bearer security scheme, unique operation ids, resolvable refs', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const ids = Object.values(doc.paths).flatMap((p) => Object.values(p).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const ref of refs(doc)) {
      const target = ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
      expect(target, ref).toBeDefined();
    }
  });

  it('declares every path template parameter as a required path parameter, and every operation has responses', () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const op of Object.values(operations)) {
        expect(op.parameters.filter((p) => p.in === 'path').map((p) => p.name).sort(), `${path} ${op.operationId}`).toEqual([...names].sort());
        expect(Object.keys(op.responses).length).toBeGreaterThan(1);
      }
    }
  });

  it('describes bodies without the path parameters and list answers as pages', () => {
    const claim = doc.paths['/api/v1/teams/{team}/tasks/{taskId}/claim'].post as unknown as {
      requestBody: { content: { 'application/json': { schema: { properties: Record<string, unknown>; required: string[] } } } };
    };
    const schema = claim.requestBody.content['application/json'].schema;
    expect(Object.keys(schema.properties)).toContain('owner');
    expect(Object.keys(schema.properties)).not.toContain('team');
    expect(schema.required).toEqual(['owner']);
    const list = doc.paths['/api/v1/teams/{team}/tasks'].get as unknown as {
      responses: { 200: { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } } };
    };
    expect(Object.keys(list.responses[200].content['application/json'].schema.properties).sort()).toEqual(['items', 'nextCursor']);
  });
});
