import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

describe('gateway HTTP errors are problem+json with stable codes', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwhttp', env: { HS_BODY_LIMIT_BYTES: '4096', HS_CORS_ORIGINS: 'https://ui.example' } });
  });
  afterAll(async () => h?.close());

  const expectProblem = (res: { statusCode: number; headers: Record<string, unknown>; json: () => unknown; body: string }, status: number, code: string) => {
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
    expect(res.body).not.toMatch(/\n\s+at /);
  };

  it('an unknown route is a 404 problem', async () => {
    expectProblem(await h.call({ method: 'GET', url: '/api/v1/nope' }, h.adminToken), 404, 'GATEWAY.ROUTE_NOT_FOUND');
  });

  it('a request without a token is 401 with WWW-Authenticate: Bearer', async () => {
    const res = await h.call({ method: 'GET', url: '/api/v1/personas' });
    expectProblem(res, 401, 'AUTH.UNAUTHENTICATED');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('malformed JSON is 400 GATEWAY.BAD_JSON', async () => {
    const res = await h.call(
      { method: 'POST', url: '/api/v1/teams', headers: { 'content-type': 'application/json' }, payload: '{"name": ' },
      h.adminToken,
    );
    expectProblem(res, 400, 'GATEWAY.BAD_JSON');
  });

  it('a body over the configured limit is 413', async () => {
    const res = await h.call(
      { method: 'POST', url: '/api/v1/teams', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'x'.repeat(5000) }) },
      h.adminToken,
    );
    expectProblem(res, 413, 'GATEWAY.PAYLOAD_TOO_LARGE');
  });

  it('a content type other than JSON (or YAML for manifests) is 415', async () => {
    const res = await h.call({ method: 'POST', url: '/api/v1/teams', headers: { 'content-type': 'text/xml' }, payload: '<team/>' }, h.adminToken);
    expectProblem(res, 415, 'GATEWAY.UNSUPPORTED_MEDIA_TYPE');
  });

  it('a text/plain body on a JSON route is 415 naming the content type, as is any type without a parser', async () => {
    for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded']) {
      const res = await h.call({ method: 'POST', url: '/api/v1/teams', headers: { 'content-type': type }, payload: 'name=alpha' }, h.adminToken);
      expectProblem(res, 415, 'GATEWAY.UNSUPPORTED_MEDIA_TYPE');
      expect(res.json().detail).toContain(JSON.stringify(type));
    }
  });

  it('invalid UTF-8 inside a JSON string is 400 GATEWAY.BAD_JSON, not text with U+FFFD', async () => {
    const before = await h.eventCount();
    const payload = Buffer.concat([Buffer.from('{"name":"utf","description":"caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const res = await h.call({ method: 'POST', url: '/api/v1/teams', headers: { 'content-type': 'application/json' }, payload }, h.adminToken);
    expectProblem(res, 400, 'GATEWAY.BAD_JSON');
    expect(res.json().detail).toMatch(/UTF-8/);
    expect((await h.call({ method: 'GET', url: '/api/v1/teams/utf' }, h.adminToken)).statusCode).toBe(404);
    expect(await h.eventCount()).toBe(before);
  });

  it('a NUL character in a body field, a path parameter or a query parameter is 400 naming it, and nothing is written', async () => {
    const before = await h.eventCount();
    const body = await h.call({ method: 'POST', url: '/api/v1/teams', payload: { name: 'nul', description: 'a\u0000b' } }, h.adminToken);
    expectProblem(body, 400, 'CONTRACTS.VALIDATION_FAILED');
    expect(body.json().field).toBe('description');
    const nested = await h.call(
      { method: 'POST', url: '/api/v1/teams/nul/approvals', payload: { kind: 'plan-approval', requester: 'con', summary: 's', timeoutMs: 1000, payload: { plan: ['ok', 'x\u0000'] } } },
      h.adminToken,
    );
    expect(nested.json()).toMatchObject({ status: 400, field: 'payload.plan.1' });
    const path = await h.call({ method: 'GET', url: '/api/v1/teams/nul/approvals/a%00' }, h.adminToken);
    expectProblem(path, 400, 'CONTRACTS.VALIDATION_FAILED');
    expect(path.json().field).toBe('approvalId');
    const query = await h.call({ method: 'GET', url: '/api/v1/teams/nul/tasks?file=src%00.ts' }, h.adminToken);
    expectProblem(query, 400, 'CONTRACTS.VALIDATION_FAILED');
    expect(query.json().field).toBe('file');
    expect(await h.eventCount()).toBe(before);
  });

  it('a schema violation is 400 naming the field', async () => {
    const res = await h.call({ method: 'POST', url: '/api/v1/teams', payload: { name: 'Bad Name!' } }, h.adminToken);
    expectProblem(res, 400, 'CONTRACTS.VALIDATION_FAILED');
    expect(res.json()).toMatchObject({ field: 'name' });
  });

  it('CORS answers a preflight from a configured origin and not from another', async () => {
    const preflight = (origin: string) =>
      h.call({ method: 'OPTIONS', url: '/api/v1/teams', headers: { origin, 'access-control-request-method': 'POST' } });
    expect((await preflight('https://ui.example')).headers['access-control-allow-origin']).toBe('https://ui.example');
    expect((await preflight('https://evil.example')).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('security headers are set on every answer', async () => {
    const res = await h.call({ method: 'GET', url: '/health/live' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBeDefined();
  });
});

describe('the served API description', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwdoc', teamManager: false });
  });
  afterAll(async () => h?.close());

  it('/api/openapi.json is public and every documented operation is a live route', async () => {
    const res = await h.call({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const method of Object.keys(operations)) {
        expect(h.http().hasRoute({ method: method.toUpperCase() as 'GET', url: path.replace(/\{(\w+)\}/g, ':$1') }), `${method} ${path}`).toBe(true);
      }
    }
  });

  it('/api/docs is an HTML page listing the operations', async () => {
    const res = await h.call({ method: 'GET', url: '/api/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('/api/v1/teams/:team/tasks/:taskId/claim');
  });
});
