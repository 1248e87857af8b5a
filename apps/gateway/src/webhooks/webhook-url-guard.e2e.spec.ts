import { randomBytes } from 'node:crypto';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';
import { WebhookReceiver } from './testing/webhook-receiver';

const TEAM = 'guarded';
const SECRET = 'whsec_guard_0123456789abcdef';

/**
 * The SSRF guard with private targets not allowed (the harness allows them for every other spec).
 * 127.0.0.2 stands for a public host the operator allowed (HS_WEBHOOK_ALLOWED_HOSTS); 127.0.0.1 is
 * "inside": an internal service that must never be reached.
 */
describe('webhook target guard (HS_WEBHOOK_ALLOW_PRIVATE off)', () => {
  let h: GatewayHarness;
  const inside = new WebhookReceiver();
  const allowed = new WebhookReceiver();
  const post = (url: string, payload: object) => h.call({ method: 'POST', url, payload }, h.adminToken);
  const deliveries = async (id: string) =>
    (await h.call({ method: 'GET', url: `/api/v1/webhooks/${id}/deliveries` }, h.adminToken)).json().deliveries as Array<{ eventType: string; attempts: number; responseStatus: number | null; lastError: string | null }>;
  const rowCount = async () => Number((await h.db.pool.query('SELECT count(*) FROM gateway.webhook_subscriptions')).rows[0].count);

  beforeAll(async () => {
    await inside.start('127.0.0.1');
    await allowed.start('127.0.0.2');
    h = await startGatewayHarness({
      label: 'gwhookguard',
      env: {
        HS_WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
        HS_WEBHOOK_BACKOFF_MS: '50',
        HS_WEBHOOK_POLL_MS: '20',
        HS_WEBHOOK_ALLOW_PRIVATE: 'false',
        HS_WEBHOOK_ALLOWED_HOSTS: '127.0.0.2/32',
      },
    });
    expect((await post('/api/v1/teams', { name: TEAM })).statusCode).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await inside.stop();
    await allowed.stop();
  });

  it('refuses loopback, link-local, metadata, private and mapped addresses, and names resolving to them, with a 400 naming url', async () => {
    const port = new URL(inside.url).port;
    const targets = [
      inside.url,
      `http://localhost:${port}/hook`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.1.2.3/hook',
      'http://172.16.0.9/hook',
      'http://192.168.1.20/hook',
      'http://100.64.0.1/hook',
      `http://[::1]:${port}/hook`,
      'http://[fe80::1]/hook',
      'http://[fd00:ec2::254]/hook',
      `http://[::ffff:127.0.0.1]:${port}/hook`,
      `http://0x7f000001:${port}/hook`,
      'http://0.0.0.0/hook',
    ];
    for (const url of targets) {
      const res = await post('/api/v1/webhooks', { url, eventTypes: ['team.*'], secret: SECRET });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
      expect(res.json().field, url).toBe('url');
      expect(res.json().detail ?? res.body).toMatch(/public address/);
    }
    expect(await rowCount()).toBe(0);
    expect(inside.requests).toEqual([]);
  });

  it('refuses a private URL on update as well, and accepts an allowed host', async () => {
    const created = await post('/api/v1/webhooks', { url: `${allowed.url}/ok`, eventTypes: ['team.*'], teams: [TEAM], secret: SECRET });
    expect(created.statusCode, created.body).toBe(201);
    const moved = await h.call({ method: 'PATCH', url: `/api/v1/webhooks/${created.json().id}`, payload: { url: `${inside.url}/moved` } }, h.adminToken);
    expect(moved.statusCode, moved.body).toBe(400);
    expect(moved.json().field).toBe('url');
    const shown = (await h.call({ method: 'GET', url: `/api/v1/webhooks/${created.json().id}` }, h.adminToken)).json();
    expect(shown.url).toBe(`${allowed.url}/ok`);
    expect((await h.call({ method: 'DELETE', url: `/api/v1/webhooks/${created.json().id}` }, h.adminToken)).statusCode).toBe(204);
  });

  it('does not follow a redirect from an allowed host to a private address', async () => {
    allowed.answer = (path) => (path === '/redirect' ? 307 : 200);
    allowed.redirectTo = `${inside.url}/inside`;
    const hook = await post('/api/v1/webhooks', { url: `${allowed.url}/redirect`, eventTypes: ['task.created'], teams: [TEAM], secret: SECRET });
    expect(hook.statusCode, hook.body).toBe(201);
    expect((await post(`/api/v1/teams/${TEAM}/tasks`, { subject: 'redirected' })).statusCode).toBe(201);
    const [delivery] = await waitFor(async () => {
      const list = await deliveries(hook.json().id);
      return list.length > 0 && list[0]!.attempts >= 2 && list;
    }, { message: 'two attempts answered 307' });
    expect(delivery).toMatchObject({ eventType: 'task.created', responseStatus: 307, lastError: expect.stringContaining('307') });
    expect(allowed.requests.filter((r) => r.path === '/redirect').length).toBeGreaterThanOrEqual(2);
    expect(inside.requests).toEqual([]);
    await h.call({ method: 'DELETE', url: `/api/v1/webhooks/${hook.json().id}` }, h.adminToken);
  });

  it('checks the address again at send time: a stored URL that now points inside is refused before connecting', async () => {
    const hook = await post('/api/v1/webhooks', { url: `${allowed.url}/rebound`, eventTypes: ['task.created'], teams: [TEAM], secret: SECRET });
    expect(hook.statusCode, hook.body).toBe(201);
    const byName = await post('/api/v1/webhooks', { url: `${allowed.url}/rebound-name`, eventTypes: ['task.created'], teams: [TEAM], secret: SECRET });
    expect(byName.statusCode, byName.body).toBe(201);
    // What a DNS rebinding does to a name checked at create time: the target is inside when the delivery goes out.
    const port = new URL(inside.url).port;
    await h.db.pool.query('UPDATE gateway.webhook_subscriptions SET url = $2 WHERE id = $1', [hook.json().id, `${inside.url}/rebound`]);
    await h.db.pool.query('UPDATE gateway.webhook_subscriptions SET url = $2 WHERE id = $1', [byName.json().id, `http://localhost:${port}/rebound-name`]);
    expect((await post(`/api/v1/teams/${TEAM}/tasks`, { subject: 'rebound' })).statusCode).toBe(201);
    for (const [id, why] of [
      [hook.json().id as string, /target refused: 127\.0\.0\.1 is a loopback address/],
      [byName.json().id as string, /target refused: localhost resolves to .*loopback address/],
    ] as const) {
      const [delivery] = await waitFor(async () => {
        const list = await deliveries(id);
        return list.length > 0 && list[0]!.attempts >= 1 && list;
      }, { message: `an attempt of ${id}` });
      expect(delivery).toMatchObject({ responseStatus: null, lastError: expect.stringMatching(why) });
    }
    expect(inside.requests).toEqual([]);
  });
});
