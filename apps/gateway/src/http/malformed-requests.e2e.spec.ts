import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../routes/api-routes';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';
import { edgeCaseRequests, malformedRequests, unknownIdRequests, type FuzzRequest } from '../testing/malformed-requests';

/** Seeded fuzzing of every route: bad input is the client's fault (4xx problem+json), and is never written. */
describe('malformed requests across all routes', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwfuzz', costGovernor: true, orchestrator: true });
    expect((await h.call({ method: 'POST', url: '/api/v1/teams', payload: { name: 'fuzz' } }, h.adminToken)).statusCode).toBe(201);
  });
  afterAll(async () => h?.close());

  /** Events in every service's schema: nothing a refused request may change. */
  async function eventsInEverySchema(): Promise<Record<string, number>> {
    const { rows } = await h.db.pool.query<{ table_schema: string }>(
      `SELECT table_schema FROM information_schema.tables WHERE table_name = 'events' ORDER BY table_schema`,
    );
    const counts: Record<string, number> = {};
    for (const { table_schema: schema } of rows) {
      counts[schema] = Number((await h.db.pool.query(`SELECT count(*)::int AS n FROM "${schema}".events`)).rows[0].n);
    }
    return counts;
  }

  /** The problem's field, or one of its issues' fields (another field of the request may fail first). */
  function namesField(body: { field?: unknown; issues?: unknown }, expected: string): boolean {
    const issues = Array.isArray(body.issues) ? (body.issues as Array<{ field?: unknown }>).map((i) => i.field) : [];
    const matches = (named: unknown) =>
      typeof named === 'string' && (expected.endsWith('*') ? named.startsWith(expected.slice(0, -1)) : named === expected);
    return [body.field, ...issues].some(matches);
  }

  async function send(request: FuzzRequest) {
    const res = await h.call({ method: request.method, url: request.url, headers: request.headers, payload: request.payload }, h.adminToken);
    const problem = res.headers['content-type']?.toString().includes('application/problem+json');
    const body = problem ? (res.json() as { code?: unknown; field?: unknown; issues?: unknown }) : {};
    const ok =
      res.statusCode >= 400 &&
      res.statusCode < 500 &&
      (request.status === undefined || res.statusCode === request.status) &&
      problem &&
      !/\n\s+at /.test(res.body) &&
      typeof body.code === 'string' &&
      (request.field === undefined || namesField(body, request.field));
    return ok ? undefined : `${request.kind} ${request.method} ${request.url.slice(0, 120)} → ${res.statusCode} ${res.body.slice(0, 200)}`;
  }

  async function sendAll(requests: FuzzRequest[]): Promise<string[]> {
    const failures: string[] = [];
    for (const request of requests) {
      const failure = await send(request);
      if (failure) failures.push(failure);
    }
    return failures;
  }

  it('2,100 generated malformed requests: only 4xx problem+json answers, no 5xx, no event appended', async () => {
    const requests = malformedRequests(apiRoutes, 2_100);
    expect(new Set(requests.map((r) => r.kind)).size).toBeGreaterThanOrEqual(9);
    const before = await eventsInEverySchema();
    expect(await sendAll(requests)).toEqual([]);
    expect(await eventsInEverySchema()).toEqual(before);
  });

  it('NUL characters in every path, query and body field, invalid UTF-8, deep and wide JSON on every route: 4xx problem+json naming the field, no 5xx, no event appended', async () => {
    const requests = edgeCaseRequests(apiRoutes);
    expect(new Set(requests.map((r) => r.kind))).toEqual(new Set(['nul-path', 'nul-query', 'nul-body', 'invalid-utf8', 'deep-json', 'wide-json']));
    // Every route gets at least a declared-or-not query parameter and an unknown one.
    expect(requests.filter((r) => r.kind === 'nul-query').length).toBeGreaterThanOrEqual(apiRoutes.length * 2);
    const before = await eventsInEverySchema();
    expect(await sendAll(requests)).toEqual([]);
    expect(await eventsInEverySchema()).toEqual(before);
  });

  it('an approval payload nested 5,000 levels is 400 naming the payload, as is one past the contract bound of 32, and nothing is written', async () => {
    const before = await eventsInEverySchema();
    const approval = (payload: string) =>
      h.call(
        {
          method: 'POST',
          url: '/api/v1/teams/fuzz/approvals',
          headers: { 'content-type': 'application/json' },
          payload: `{"kind":"plan-approval","requester":"con","summary":"s","timeoutMs":1000,"payload":${payload}}`,
        },
        h.adminToken,
      );
    const nest = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const deep = await approval(nest(5_000));
    expect(deep.headers['content-type']).toContain('application/problem+json');
    expect(deep.json()).toMatchObject({ status: 400, code: 'CONTRACTS.VALIDATION_FAILED', field: 'payload' });
    const pastBound = await approval(nest(40));
    expect(pastBound.json()).toMatchObject({ status: 400, code: 'CONTRACTS.VALIDATION_FAILED', field: 'payload.a' });
    expect(pastBound.json().detail).toMatch(/at most 32 levels/);
    expect(await eventsInEverySchema()).toEqual(before);
  });

  it('well-formed requests for unknown ids are refused without writing', async () => {
    const before = await eventsInEverySchema();
    const failures = (await Promise.all(unknownIdRequests().map(send))).filter(Boolean);
    expect(failures).toEqual([]);
    expect(await eventsInEverySchema()).toEqual(before);
  });
});
