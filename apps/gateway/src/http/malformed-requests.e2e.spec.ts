import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../routes/api-routes';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';
import { malformedRequests, unknownIdRequests, type FuzzRequest } from '../testing/malformed-requests';

/** Seeded fuzzing of every route: bad input is the client's fault (4xx problem+json), and is never written. */
describe('malformed requests across all routes', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwfuzz' });
    expect((await h.call({ method: 'POST', url: '/api/v1/teams', payload: { name: 'fuzz' } }, h.adminToken)).statusCode).toBe(201);
  });
  afterAll(async () => h?.close());

  async function send(request: FuzzRequest) {
    const res = await h.call({ method: request.method, url: request.url, headers: request.headers, payload: request.payload }, h.adminToken);
    const problem = res.headers['content-type']?.toString().includes('application/problem+json');
    const ok = res.statusCode >= 400 && res.statusCode < 500 && problem && !/\n\s+at /.test(res.body) && typeof res.json().code === 'string';
    return ok ? undefined : `${request.kind} ${request.method} ${request.url.slice(0, 120)} → ${res.statusCode} ${res.body.slice(0, 200)}`;
  }

  it('2,100 generated malformed requests: only 4xx problem+json answers, no 5xx, no event appended', async () => {
    const requests = malformedRequests(apiRoutes, 2_100);
    expect(new Set(requests.map((r) => r.kind)).size).toBeGreaterThanOrEqual(9);
    const before = await h.eventCount();
    const failures: string[] = [];
    for (const request of requests) {
      const failure = await send(request);
      if (failure) failures.push(failure);
    }
    expect(failures).toEqual([]);
    expect(await h.eventCount()).toBe(before);
  });

  it('well-formed requests for unknown ids are refused without writing', async () => {
    const before = await h.eventCount();
    const failures = (await Promise.all(unknownIdRequests().map(send))).filter(Boolean);
    expect(failures).toEqual([]);
    expect(await h.eventCount()).toBe(before);
  });
});
