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

  it('a NUL character in a path, query or body field is refused at the edge, before anything is sent: 400 naming the field, not 503', async () => {
    const token = await h.issueToken('admin', '*');
    const refused = [
      await h.call({ method: 'GET', url: '/api/v1/teams/alpha/approvals/a%00' }, token),
      await h.call({ method: 'GET', url: '/api/v1/teams/alpha/locks?holder=al%00' }, token),
      await h.call({ method: 'POST', url: '/api/v1/teams', payload: { name: 'alpha', metadata: { 'o\u0000k': 'x' } } }, token),
    ];
    expect(refused.map((res) => res.statusCode)).toEqual([400, 400, 400]);
    expect(refused.map((res) => res.json().field)).toEqual(['approvalId', 'holder', 'metadata.o\\u0000k']);
    expect(refused[0].headers['content-type']).toContain('application/problem+json');
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
