import { randomBytes } from 'node:crypto';
import { WEBHOOK_SIGNATURE_HEADER, verifyWebhook } from '@headspace/contracts';
import type { CloudEvent } from '@headspace/messaging';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseTestClient } from '../stream/testing/sse-test-client';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';
import { WebhookReceiver } from './testing/webhook-receiver';

const SECRET = 'whsec_spec_0123456789abcdef';
const TEAM = 'hooked';

/** Per source (service), the CloudEvents' log positions must only grow: the order the log has them in. */
export function inLogOrder(events: CloudEvent[]): boolean {
  const last = new Map<string, bigint>();
  for (const e of events) {
    const position = BigInt(e.hsposition);
    if ((last.get(e.source) ?? -1n) >= position) return false;
    last.set(e.source, position);
  }
  return true;
}

describe('webhook subscriptions through the gateway', () => {
  let h: GatewayHarness;
  const receiver = new WebhookReceiver();
  const post = (url: string, payload: object) => h.call({ method: 'POST', url, payload }, h.adminToken);
  const subscribe = async (path: string, body: object) => {
    const res = await post('/api/v1/webhooks', { url: `${receiver.url}${path}`, secret: SECRET, ...body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string };
  };
  const rowCount = async () => Number((await h.db.pool.query('SELECT count(*) FROM gateway.webhook_subscriptions')).rows[0].count);

  beforeAll(async () => {
    await receiver.start();
    h = await startGatewayHarness({
      label: 'gwhooks',
      env: { HS_WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'), HS_WEBHOOK_BACKOFF_MS: '50', HS_WEBHOOK_POLL_MS: '20', HS_WEBHOOK_DISABLE_AFTER_MS: '1500' },
    });
  });
  afterAll(async () => {
    await h?.close();
    await receiver.stop();
  });

  it('refuses bad subscriptions with a 400 naming the field, and writes nothing', async () => {
    const cases: Array<[object, string]> = [
      [{ url: 'ftp://example.test/x', eventTypes: ['task.*'] }, 'url'],
      [{ url: 'https://user:pw@example.test/x', eventTypes: ['task.*'] }, 'url'],
      [{ url: 'https://example.test/x', eventTypes: ['task.exploded'] }, 'eventTypes.0'],
      [{ url: 'https://example.test/x', eventTypes: ['task.*'], secret: 'too-short' }, 'secret'],
    ];
    for (const [body, field] of cases) {
      const res = await post('/api/v1/webhooks', body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().field).toBe(field);
    }
    expect(await rowCount()).toBe(0);
  });

  it('shows a generated secret once and never again', async () => {
    const res = await post('/api/v1/webhooks', { url: 'https://example.test/generated', eventTypes: ['team.created'], teams: ['nobody'] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().secret).toMatch(/^whsec_/);
    const shown = await h.call({ method: 'GET', url: `/api/v1/webhooks/${res.json().id}` }, h.adminToken);
    expect(shown.statusCode).toBe(200);
    expect(shown.body).not.toContain(res.json().secret);
    expect(shown.json().secret).toBeUndefined();
    expect((await h.call({ method: 'DELETE', url: `/api/v1/webhooks/${res.json().id}` }, h.adminToken)).statusCode).toBe(204);
  });

  it("delivers a team's events signed and in order, retries a 500 until the 4th attempt, and sends nothing to a disabled subscription", async () => {
    const all = await subscribe('/all', { eventTypes: ['*'], teams: [TEAM] });
    const flaky = await subscribe('/flaky', { eventTypes: ['team.created', 'task.created'], teams: [TEAM] });
    const off = await subscribe('/off', { eventTypes: ['*'], teams: [TEAM] });
    const other = await subscribe('/other-team', { eventTypes: ['*'], teams: ['someone-else'] });
    const disabled = await h.call({ method: 'PATCH', url: `/api/v1/webhooks/${off.id}`, payload: { enabled: false } }, h.adminToken);
    expect(disabled.json()).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('disabled by') });
    receiver.answer = (path, body, seen) =>
      path === '/flaky' && JSON.parse(body).type === 'headspace.team.created' && seen.filter((r) => r.path === '/flaky').length < 3 ? 500 : 200;

    expect((await post('/api/v1/teams', { name: TEAM })).statusCode).toBe(201);
    for (let i = 0; i < 5; i++) expect((await post(`/api/v1/teams/${TEAM}/tasks`, { subject: `task ${i}` })).statusCode).toBe(201);

    const teamEventCount = Number(
      (await h.db.pool.query(`SELECT count(*) FROM team_manager.events WHERE stream_id = $1 OR stream_id LIKE $2 OR stream_id LIKE $3`, [`team-${TEAM}`, `task-${TEAM}.%`, `tasklist-${TEAM}`])).rows[0].count,
    );
    const delivered = await waitFor(() => receiver.delivered('/all').length >= teamEventCount && receiver.delivered('/all'), { message: 'every team event at /all' });
    const events = delivered.map((r) => JSON.parse(r.body) as CloudEvent);
    expect(events.map((e) => e.type)).toContain('headspace.team.created');
    expect(events.filter((e) => e.type === 'headspace.task.created')).toHaveLength(5);
    expect(inLogOrder(events)).toBe(true);
    for (const r of delivered) {
      expect(r.headers['content-type']).toBe('application/cloudevents+json');
      expect(verifyWebhook(SECRET, r.body, r.headers[WEBHOOK_SIGNATURE_HEADER.toLowerCase()] as string)).toMatchObject({ ok: true });
      expect(r.headers['headspace-event-id']).toBe(JSON.parse(r.body).id);
    }

    // The first event is answered 500 three times; the five after it wait behind it (in order per stream).
    const flakyDelivered = await waitFor(() => receiver.delivered('/flaky').length === 6 && receiver.delivered('/flaky'), { message: 'the flaky receiver answered 200' });
    expect(flakyDelivered.map((r) => JSON.parse(r.body).type)).toEqual(['headspace.team.created', ...Array(5).fill('headspace.task.created')]);
    expect(inLogOrder(flakyDelivered.map((r) => JSON.parse(r.body)))).toBe(true);
    const flakyTries = receiver.requests.filter((r) => r.path === '/flaky' && JSON.parse(r.body).type === 'headspace.team.created');
    expect(flakyTries.map((r) => r.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(flakyTries.map((r) => r.headers['headspace-delivery'])).size).toBe(1);
    expect(flakyTries.map((r) => r.headers['headspace-attempt'])).toEqual(['1', '2', '3', '4']);
    // The receiver can see the 4th attempt before the sender records its pass's attempts.
    const teamCreated = async () =>
      (await h.call({ method: 'GET', url: `/api/v1/webhooks/${flaky.id}/deliveries` }, h.adminToken)).json().deliveries.find((d: { eventType: string }) => d.eventType === 'team.created');
    await waitFor(async () => (await teamCreated())?.state === 'succeeded', { message: 'the 4th attempt recorded' });
    expect(await teamCreated()).toMatchObject({ state: 'succeeded', attempts: 4, responseStatus: 200, lastError: null });

    expect(receiver.requests.filter((r) => r.path === '/off' || r.path === '/other-team')).toEqual([]);
    expect((await h.call({ method: 'GET', url: `/api/v1/webhooks/${off.id}/deliveries` }, h.adminToken)).json().deliveries).toEqual([]);
    expect((await h.call({ method: 'GET', url: `/api/v1/webhooks/${other.id}/deliveries` }, h.adminToken)).json().deliveries).toEqual([]);
    expect((await h.call({ method: 'GET', url: `/api/v1/webhooks/${all.id}` }, h.adminToken)).json()).toMatchObject({ enabled: true, failingSince: null });
  });

  it('redelivers a delivery on request and backfills the matching events since a time', async () => {
    const list = (await h.call({ method: 'GET', url: '/api/v1/webhooks' }, h.adminToken)).json().webhooks as Array<{ id: string; url: string }>;
    const flaky = list.find((w) => w.url.endsWith('/flaky'))!;
    const [first] = (await h.call({ method: 'GET', url: `/api/v1/webhooks/${flaky.id}/deliveries` }, h.adminToken)).json().deliveries;
    const before = receiver.delivered('/flaky').length;
    const again = await post(`/api/v1/webhooks/${flaky.id}/deliveries/${first.deliveryId}/redeliver`, {});
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json()).toMatchObject({ eventId: first.eventId, state: 'pending' });
    await waitFor(() => receiver.delivered('/flaky').length === before + 1, { message: 'the redelivery' });

    const backfill = await post(`/api/v1/webhooks/${flaky.id}/backfill`, { since: '2000-01-01T00:00:00Z' });
    expect(backfill.statusCode, backfill.body).toBe(202);
    expect(backfill.json()).toMatchObject({ scheduled: 6, truncated: false });
    await waitFor(() => receiver.delivered('/flaky').length === before + 7, { message: 'the backfilled events' });
    const backfilled = receiver.delivered('/flaky').slice(before + 1).map((r) => JSON.parse(r.body) as CloudEvent);
    expect(backfilled.map((e) => e.id)).toEqual(receiver.delivered('/flaky').slice(0, 6).map((r) => JSON.parse(r.body).id));

    const bad = await post(`/api/v1/webhooks/${flaky.id}/backfill`, { since: 'yesterday-ish' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toBe('since');
  });

  it('disables a subscription failing for longer than HS_WEBHOOK_DISABLE_AFTER_MS, records why, and sends it nothing more', async () => {
    // Subscribers of the gateway's own events: an SSE client and a webhook on webhook.* (any team).
    await h.http().listen({ port: 0, host: '127.0.0.1' });
    const sse = await SseTestClient.open(`http://127.0.0.1:${(h.http().server.address() as { port: number }).port}/api/v1/stream?types=webhook.*&since=all&format=cloudevents`, {
      authorization: `Bearer ${h.adminToken}`,
    });
    expect(sse.status).toBe(200);
    await subscribe('/watch', { eventTypes: ['webhook.*'] });
    const dead = await subscribe('/dead', { eventTypes: ['task.created'], teams: [TEAM] });
    receiver.answer = (path) => (path === '/dead' ? 503 : 200);
    expect((await post(`/api/v1/teams/${TEAM}/tasks`, { subject: 'into the void' })).statusCode).toBe(201);
    const disabled = await waitFor(
      async () => {
        const hook = (await h.call({ method: 'GET', url: `/api/v1/webhooks/${dead.id}` }, h.adminToken)).json();
        return hook.enabled === false && hook;
      },
      { timeoutMs: 20_000, message: 'the failing subscription disabled' },
    );
    expect(disabled.disabledReason).toMatch(/HS_WEBHOOK_DISABLE_AFTER_MS/);
    const log = await h.db.pool.query(`SELECT change, reason FROM gateway.webhook_subscription_log WHERE subscription_id = $1 ORDER BY seq`, [dead.id]);
    expect(log.rows.map((r) => r.change)).toEqual(['created', 'auto-disabled']);
    const tries = receiver.requests.filter((r) => r.path === '/dead').length;
    expect(tries).toBeGreaterThan(1);
    expect((await post(`/api/v1/teams/${TEAM}/tasks`, { subject: 'after the disable' })).statusCode).toBe(201);
    await waitFor(() => receiver.delivered('/all').some((r) => JSON.parse(r.body).data.subject === 'after the disable'), { message: 'the next event at /all' });
    expect(receiver.requests.filter((r) => r.path === '/dead')).toHaveLength(tries);

    // The disable is an event on the gateway's stream, with the subscription, the reason and the last failure.
    const lastTry = receiver.requests.filter((r) => r.path === '/dead').at(-1)!;
    const recorded = await h.db.pool.query(`SELECT type, data FROM gateway.events WHERE stream_id = $1`, [`webhook-${dead.id}`]);
    expect(recorded.rows).toEqual([
      {
        type: 'webhook.subscription-disabled',
        data: expect.objectContaining({
          subscriptionId: dead.id,
          reason: disabled.disabledReason,
          teams: [TEAM],
          failingSince: expect.any(String),
          lastFailure: expect.objectContaining({ eventId: JSON.parse(lastTry.body).id, attempt: tries, responseStatus: 503, error: expect.stringContaining('503') }),
        }),
      },
    ]);
    const isDisable = (e: CloudEvent) => e.type === 'headspace.webhook.subscription-disabled' && (e.data as { subscriptionId: string }).subscriptionId === dead.id;
    const streamed = await sse.until(() => sse.messages.map((m) => m.json<CloudEvent>()).find(isDisable), 'the disable on the SSE stream');
    expect(streamed).toMatchObject({ source: '/headspace/gateway', subject: `webhook-${dead.id}`, data: recorded.rows[0].data });
    sse.close();
    const watched = await waitFor(() => receiver.delivered('/watch').find((r) => isDisable(JSON.parse(r.body))), { message: 'the disable delivered to a webhook.* subscription' });
    expect(verifyWebhook(SECRET, watched.body, watched.headers[WEBHOOK_SIGNATURE_HEADER.toLowerCase()] as string)).toMatchObject({ ok: true });
    expect(JSON.parse(watched.body).data).toEqual(recorded.rows[0].data);
  });

  it('keeps secrets out of every answer, log row and delivery row', async () => {
    const rows = await h.db.pool.query(
      `SELECT (SELECT json_agg(l) FROM gateway.webhook_subscription_log l)::text AS log, (SELECT json_agg(d) FROM gateway.webhook_deliveries d)::text AS deliveries,
              (SELECT json_agg(s.sealed_secret) FROM gateway.webhook_subscriptions s)::text AS sealed`,
    );
    const { log, deliveries, sealed } = rows.rows[0];
    for (const text of [log, deliveries, sealed, (await h.call({ method: 'GET', url: '/api/v1/webhooks' }, h.adminToken)).body]) expect(text).not.toContain(SECRET);
  });
});
