import type { AddressInfo } from 'node:net';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';
import { SseTestClient } from './testing/sse-test-client';

/**
 * The stream's limits over real sockets, with the real team-manager publishing to real JetStream:
 * HS_SSE_MAX_STREAMS_PER_TOKEN=2 open streams per token, HS_SSE_MAX_REPLAY=3 messages per replay.
 */
describe('event stream limits', () => {
  let h: GatewayHarness;
  let base: string;
  const open: SseTestClient[] = [];
  const sse = async (token: string, query = '', headers: Record<string, string> = {}) => {
    const client = await SseTestClient.open(`${base}/api/v1/stream${query}`, { authorization: `Bearer ${token}`, ...headers });
    open.push(client);
    return client;
  };

  beforeAll(async () => {
    Object.assign(process.env, { HS_SSE_MAX_STREAMS_PER_TOKEN: '2', HS_SSE_MAX_REPLAY: '3', SSE_HEARTBEAT_MS: '200' });
    h = await startGatewayHarness({ label: 'sselimits' });
    await h.http().listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.http().server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    for (const c of open) c.close();
    await h?.close();
    for (const k of ['HS_SSE_MAX_STREAMS_PER_TOKEN', 'HS_SSE_MAX_REPLAY', 'SSE_HEARTBEAT_MS']) delete process.env[k];
  });

  it('the third concurrent stream of a token is 429 with Retry-After; closing one frees its slot; other tokens are not affected', async () => {
    const viewer = await h.issueToken('viewer', '*');
    const [first, second] = [await sse(viewer), await sse(viewer)];
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await sse(viewer);
    await third.until(() => third.closed, 'the refusal to end');
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBe('5');
    expect(third.headers['content-type']).toContain('application/problem+json');
    expect(JSON.parse(third.body)).toMatchObject({ status: 429, code: 'GATEWAY.TOO_MANY_STREAMS' });

    const other = await sse(await h.issueToken('viewer', '*'));
    expect(other.status).toBe(200);

    first.close();
    const again = await waitFor(
      async () => {
        const attempt = await sse(viewer);
        if (attempt.status === 200) return attempt;
        attempt.close();
        return undefined;
      },
      { message: 'a slot to free up once a stream closed' },
    );
    expect(again.status).toBe(200);
    const fourth = await sse(viewer);
    await fourth.until(() => fourth.closed, 'the refusal to end');
    expect(fourth.status).toBe(429);
  });

  it('a replay ends after HS_SSE_MAX_REPLAY messages with replay-limit and its id; reconnecting with it continues with no gap and no duplicate', async () => {
    const teams = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7'];
    // A live watcher (no replay) sees the last team arrive: by then every event is in JetStream and the hub.
    const watcher = await sse(await h.issueToken('viewer', '*'));
    for (const name of teams) expect((await h.call({ method: 'POST', url: '/api/v1/teams', payload: { name } }, h.adminToken)).statusCode).toBe(201);
    await watcher.next((m) => m.event === 'team.created' && m.json<{ data: { name: string } }>().data.name === 'r7', 'the last team on the live stream');
    watcher.close();
    const total = await h.eventCount();
    const received: Array<{ eventId: string; type: string; name?: string }> = [];
    let lastEventId: string | undefined;
    let cuts = 0;
    // A closed stream's slot frees when the server sees the close: retry a 429 until it has.
    const reconnect = () =>
      waitFor(async () => {
        const client = await sse(h.adminToken, lastEventId ? '' : '?since=all', lastEventId ? { 'last-event-id': lastEventId } : {});
        if (client.status === 200) return client;
        client.close();
        return undefined;
      }, { message: 'a stream slot' });
    for (let part = 0; part < 20 && received.length < total; part++) {
      const client = await reconnect();
      // Either the replay is cut (replay-limit, then the end) or it caught up (the stream stays open, ping ids only).
      const cut = await client.until(() => client.messages.some((m) => m.event === 'replay-limit') && client.closed, 'a replay-limit and the end', 1_500).then(
        () => true,
        () => false,
      );
      const events = client.messages.filter((m) => m.event !== 'replay-limit');
      if (cut) {
        cuts++;
        expect(events.length).toBeLessThanOrEqual(3);
        const limit = client.messages.at(-1)!;
        expect(limit.event).toBe('replay-limit');
        expect(limit.json()).toMatchObject({ max: 3 });
        lastEventId = limit.id;
      } else lastEventId = client.lastEventId;
      for (const m of events) {
        const data = m.json<{ eventId: string; type: string; data: { name?: string } }>();
        received.push({ eventId: data.eventId, type: data.type, name: data.data.name });
      }
      client.close();
    }
    expect(cuts).toBeGreaterThanOrEqual(Math.floor(total / 3) - 1);
    expect(new Set(received.map((r) => r.eventId)).size).toBe(received.length);
    expect(received.length).toBe(total);
    expect(received.filter((r) => r.type === 'team.created').map((r) => r.name)).toEqual(teams);
  });
});
