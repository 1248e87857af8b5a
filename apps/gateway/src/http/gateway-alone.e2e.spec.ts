import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

/** Only the gateway runs: nothing answers its NATS requests. */
describe('the gateway without a team-manager behind it', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwalone', teamManager: false, env: { HS_RATE_LIMIT_MAX: '6', HS_RATE_LIMIT_WINDOW_MS: '600000' } });
  });
  afterAll(async () => h?.close());

  it('a query answers 503 problem+json with Retry-After', async () => {
    const res = await h.call({ method: 'GET', url: '/api/v1/teams/alpha/tasks' }, h.adminToken);
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 503, code: 'MESSAGING.NO_RESPONDERS' });
  });

  it('a command answers 503 too, and nothing is written', async () => {
    const res = await h.call({ method: 'POST', url: '/api/v1/teams', payload: { name: 'alpha' } }, h.adminToken);
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
  });

  it('rate limiting is per token: one token over its limit gets 429 with Retry-After, another is still served', async () => {
    const first = await h.issueToken('viewer', '*');
    const second = await h.issueToken('viewer', '*');
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await h.call({ method: 'GET', url: '/api/v1/personas' }, first)).statusCode);
    expect(statuses.slice(0, 6).every((s) => s === 503)).toBe(true);
    expect(statuses[6]).toBe(429);
    const limited = await h.call({ method: 'GET', url: '/api/v1/personas' }, first);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    expect(limited.headers['content-type']).toContain('application/problem+json');
    expect(limited.json()).toMatchObject({ status: 429, code: 'GATEWAY.RATE_LIMITED' });
    expect((await h.call({ method: 'GET', url: '/api/v1/personas' }, second)).statusCode).toBe(503);
    expect((await h.call({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
  });
});
