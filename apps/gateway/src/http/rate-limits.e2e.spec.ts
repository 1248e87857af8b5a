import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

/** Only the gateway (and its PostgreSQL): per-address limit 4, spend limit 2 per token. */
describe('rate limits', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({
      label: 'ratelimits',
      teamManager: false,
      env: { HS_RATE_LIMIT_ADDRESS_MAX: '4', HS_RATE_LIMIT_SPEND_MAX: '2', HS_RATE_LIMIT_MAX: '1000', HS_RATE_LIMIT_WINDOW_MS: '600000' },
    });
  }, 60_000);
  afterAll(async () => h?.close());

  const from = (remoteAddress: string, url: string, token?: string, method: 'GET' | 'POST' = 'GET', payload?: unknown) =>
    h.call({ method, url, remoteAddress, ...(payload ? { payload } : {}) }, token);

  it('bad-token requests beyond the address limit get 429 before the token lookup: answered while the token table is locked', async () => {
    for (let i = 0; i < 4; i++) expect((await from('10.0.0.66', '/api/v1/personas', `hst_bogus_${i}`)).statusCode).toBe(401);
    const locker = await h.db.pool.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE gateway.api_tokens IN ACCESS EXCLUSIVE MODE');
      // A request that reached the lookup would wait for the lock; the limited one is answered at once.
      const timeout = new Promise<'blocked on the token table'>((resolve) => setTimeout(() => resolve('blocked on the token table'), 3_000).unref());
      const res = await Promise.race([from('10.0.0.66', '/api/v1/personas', 'hst_bogus_5'), timeout]);
      expect(res).not.toBe('blocked on the token table');
      const limited = res as Exclude<typeof res, string>;
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['retry-after']).toMatch(/^\d+$/);
      expect(limited.headers['content-type']).toContain('application/problem+json');
      expect(limited.json()).toMatchObject({ status: 429, code: 'GATEWAY.RATE_LIMITED' });
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
    // Another address is still served (its request reaches the lookup: 401 for a bad token).
    expect((await from('10.0.0.67', '/api/v1/personas', 'hst_bogus_x')).statusCode).toBe(401);
  });

  it('routes that spend money have the stricter per-token limit; other routes of the same token go on', async () => {
    const operator = await h.issueToken('operator', '*');
    const body = { goal: 'Add topWords', source: '/srv/projects/app' };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await from('10.0.0.70', '/api/v1/teams/red/runs', operator, 'POST', body)).statusCode);
    // Nothing serves start-run here: 503 until the spend limit, then 429.
    expect(statuses).toEqual([503, 503, 429]);
    expect((await from('10.0.0.70', '/api/v1/teams/red/runs', operator)).statusCode).toBe(503);
  });
});
