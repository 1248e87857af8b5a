import { randomBytes } from 'node:crypto';
import { connect as netConnect, type Socket } from 'node:net';
import { Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { setSubjectNamespace } from '@headspace/contracts';
import { ensureStream, eventStreamFor } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import { deleteNamespaceStreams, waitFor } from '@headspace/testing';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../auth/principal';
import { ProblemDetailsFilter } from '../http/problem-details.filter';
import { StreamHub } from './stream-hub';
import { StreamModule } from './stream.module';
import { publishEvent } from './testing/stream-fixtures';
import { SseTestClient } from './testing/sse-test-client';

/**
 * The stream module on its own, over real HTTP and a real JetStream: the gateway's auth guard is
 * stood in for by a hook that attaches the principal a test names (the guard's output contract).
 */
describe('SSE stream: fan-out, filters, scope, back-pressure, resume', () => {
  const namespace = `sse-${randomBytes(4).toString('hex')}`;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let app: NestFastifyApplication;
  let hub: StreamHub;
  let base: string;
  const open: SseTestClient[] = [];
  const admin: Principal = { tokenId: 't-admin', name: 'admin', role: 'admin', teams: '*', projects: '*' };
  const alphaViewer: Principal = { tokenId: 't-alpha', name: 'alpha-viewer', role: 'viewer', teams: ['alpha'], projects: '*' };

  const sse = async (query = '', principal: Principal | null = admin, headers: Record<string, string> = {}) => {
    const client = await SseTestClient.open(`${base}/api/v1/stream${query}`, {
      ...(principal ? { 'x-test-principal': JSON.stringify(principal) } : {}),
      ...headers,
    });
    open.push(client);
    return client;
  };
  const tm = (type: string, data: Record<string, unknown>) => publishEvent(js, 'team-manager', type, data);
  const ops = (type: string, data: Record<string, unknown>) => publishEvent(js, 'ops-leon', type, data);

  beforeAll(async () => {
    Object.assign(process.env, { SSE_HEARTBEAT_MS: '100', SSE_CLIENT_BUFFER_BYTES: String(256 * 1024), SSE_DISCOVERY_MS: '100' });
    setSubjectNamespace(namespace);
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    js = jetstream(nc);
    // Only the team-manager stream exists at start: ops-leon's appears later (a service started after the gateway).
    await ensureStream(await jetstreamManager(nc), eventStreamFor('team-manager'));
    await tm('team.created', { teamId: 'old', name: 'old', leadAgentType: 'x', metadata: {}, createdAt: new Date().toISOString() });

    @Global()
    @Module({ providers: [{ provide: NATS_CONNECTION, useValue: nc }], exports: [NATS_CONNECTION] })
    class NatsModule {}
    @Module({ imports: [NatsModule, StreamModule], providers: [{ provide: APP_FILTER, useClass: ProblemDetailsFilter }] })
    class TestModule {}

    app = await NestFactory.create<NestFastifyApplication>(TestModule, new FastifyAdapter(), { logger: ['error'] });
    app.getHttpAdapter().getInstance().addHook('onRequest', async (request: { headers: Record<string, unknown>; principal?: Principal }, reply: { header(k: string, v: string): unknown }) => {
      reply.header('x-from-hook', 'kept'); // as CORS / rate-limit hooks do
      const p = request.headers['x-test-principal'];
      if (typeof p === 'string') request.principal = JSON.parse(p) as Principal;
    });
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
    base = base.replace('[::1]', '127.0.0.1');
    hub = app.get(StreamHub);
  });

  afterAll(async () => {
    for (const c of open) c.close();
    await app?.close();
    await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
    await nc?.close();
    for (const k of ['SSE_HEARTBEAT_MS', 'SSE_CLIENT_BUFFER_BYTES', 'SSE_DISCOVERY_MS']) delete process.env[k];
  });

  it('answers with the SSE headers (and those set by earlier hooks) and heartbeats', async () => {
    const client = await sse();
    expect(client.status).toBe(200);
    expect(client.headers['content-type']).toContain('text/event-stream');
    expect(client.headers['cache-control']).toContain('no-cache');
    expect(client.headers['x-accel-buffering']).toBe('no');
    expect(client.headers['x-from-hook']).toBe('kept');
    await client.until(() => client.comments.includes('ping'), 'a heartbeat');
    client.close();
  });

  it('refuses a caller without a principal or token (401) and a malformed Last-Event-ID (400 naming it)', async () => {
    const anonymous = await sse('', null);
    expect(anonymous.status).toBe(401);
    const bad = await sse('', admin, { 'last-event-id': 'garbage' });
    expect(bad.status).toBe(400);
    await bad.until(() => bad.closed || bad.body.includes('}'), 'the problem body');
    expect(JSON.parse(bad.body)).toMatchObject({ code: 'CONTRACTS.VALIDATION_FAILED', field: 'Last-Event-ID' });
    const badQuery = await sse('?types=Not%20A%20Type');
    expect(badQuery.status).toBe(400);
  });

  it('moves the Last-Event-ID of a client whose filter skipped events forward with the heartbeat', async () => {
    const client = await sse('?types=nothing.matches');
    const { seq } = await tm('teammate.idle', { name: 'skipped', idleAt: new Date().toISOString() });
    const position = `team_manager=${seq.toString(36)}`;
    await client.until(() => client.lastEventId?.includes(position), 'a heartbeat carrying the position past the skipped event');
    expect(client.messages).toHaveLength(0);
    client.close();
  });

  it('starts a fresh connection at new events only', async () => {
    const client = await sse();
    const { eventId } = await tm('team.created', { teamId: 't1', name: 'fresh', leadAgentType: 'architect', metadata: {}, createdAt: new Date().toISOString() });
    const first = await client.next(() => true, 'the first event');
    expect(first.json()).toMatchObject({ eventId, type: 'team.created', team: 'fresh', summary: 'Team fresh created (lead: architect)' });
    expect(first.event).toBe('team.created');
    expect(client.messages.some((m) => m.json<{ data: { name: string } }>().data.name === 'old')).toBe(false);
    client.close();
  });

  it('filters by team, by event type with category wildcards, and by persona', async () => {
    const byTeam = await sse('?team=alpha');
    const byType = await sse('?types=task.*,approval.requested');
    const byPersona = await sse('?persona=Con');
    const at = new Date().toISOString();
    await tm('task.claimed', { team: 'bravo', taskId: '1', owner: 'con', attempt: 1, leaseMs: 1000, leaseExpiresAt: at, claimedAt: at });
    await tm('mailbox.inbox-opened', { team: 'alpha', memberId: 'robbo', role: 'lead', openedAt: at });
    await tm('approval.requested', { approvalId: 'a1', team: 'alpha', kind: 'plan-approval', requester: 'gavin', summary: 'Ship the plan', payload: {}, defaultAnswer: 'deny', timeoutMs: 1000, requestedAt: at, expiresAt: at });
    const last = await tm('task.completed', { team: 'alpha', taskId: '2', owner: 'con', completedAt: at });
    const done = (c: SseTestClient) => c.next((m) => m.json<{ eventId: string }>().eventId === last.eventId, 'the last event');
    await Promise.all([done(byTeam), done(byType), done(byPersona)]);
    expect(byTeam.messages.map((m) => m.event)).toEqual(['mailbox.inbox-opened', 'approval.requested', 'task.completed']);
    expect(byType.messages.map((m) => m.event)).toEqual(['task.claimed', 'approval.requested', 'task.completed']);
    expect(byPersona.messages.map((m) => m.event)).toEqual(['task.claimed', 'task.completed']);
    [byTeam, byType, byPersona].forEach((c) => c.close());
  });

  it("carries only the events of the principal's teams", async () => {
    const scoped = await sse('', alphaViewer);
    const everything = await sse('', admin);
    const at = new Date().toISOString();
    await tm('task.claimed', { team: 'bravo', taskId: '7', owner: 'al', attempt: 1, leaseMs: 1000, leaseExpiresAt: at, claimedAt: at });
    await tm('persona.released', { leaseId: 'l', requestId: 'r', personaId: 'may', releasedAt: at });
    const last = await tm('task.claimed', { team: 'alpha', taskId: '8', owner: 'al', attempt: 1, leaseMs: 1000, leaseExpiresAt: at, claimedAt: at });
    await scoped.next((m) => m.json<{ eventId: string }>().eventId === last.eventId, 'the alpha event');
    await everything.next((m) => m.json<{ eventId: string }>().eventId === last.eventId, 'the alpha event');
    expect(scoped.messages.map((m) => m.json<{ team?: string }>().team)).toEqual(['alpha']);
    expect(everything.messages.map((m) => m.json<{ type: string }>().type)).toEqual(['task.claimed', 'persona.released', 'task.claimed']);
    scoped.close();
    everything.close();
  });

  it('joins an event stream created after it started, and resumes across streams with no gap and no duplicate', async () => {
    const reference = await sse();
    const reader = await sse();
    await ensureStream(await jetstreamManager(nc), eventStreamFor('ops-leon'));
    await waitFor(() => hub.streamKeys().includes('ops_leon'), { message: 'ops-leon stream discovered' });
    const sent: string[] = [];
    const both = async (i: number) => {
      sent.push((await tm('teammate.idle', { name: `m${i}`, idleAt: new Date().toISOString() })).eventId);
      sent.push((await ops('issue.opened', { team: 'alpha', summary: `issue ${i}` })).eventId);
    };
    for (let i = 0; i < 3; i++) await both(i);
    await reader.until(() => reader.messages.length >= 6 && reader, 'six events');
    const lastSeen = reader.messages[3];
    expect(lastSeen.id).toMatch(/^v1:.*team_manager=[0-9a-z]+/);
    expect(lastSeen.id).toContain('ops_leon=');
    reader.close();
    for (let i = 3; i < 6; i++) await both(i);
    const resumed = await sse('', admin, { 'last-event-id': lastSeen.id! });
    await resumed.until(() => resumed.messages.length >= 8 && resumed, 'the missed events');
    await reference.until(() => reference.messages.length >= 12 && reference, 'all events');
    // Live fan-out and replay meet without a duplicate: one more live event follows exactly once.
    await both(6);
    await resumed.until(() => resumed.messages.length >= 10 && resumed, 'live events after the replay');
    // Across JetStream streams there is no order to keep (two consumers); within each there is.
    expect([...reference.eventIds()].sort()).toEqual([...sent].sort());
    expect(reference.eventIds().filter((_, i) => reference.messages[i].event === 'teammate.idle')).toEqual(sent.filter((_, i) => i % 2 === 0));
    expect(reference.eventIds().filter((_, i) => reference.messages[i].event === 'issue.opened')).toEqual(sent.filter((_, i) => i % 2 === 1));
    // Exactly what the reader had not seen by the event whose id it resumed from.
    const seenBefore = new Set(reader.eventIds().slice(0, 4));
    const expected = sent.filter((id) => !seenBefore.has(id));
    expect(expected).toHaveLength(sent.length - 4);
    expect([...resumed.eventIds()].sort()).toEqual([...expected].sort());
    // Within each JetStream stream the order is the stream's order.
    const order = (ids: string[], type: string, c: SseTestClient) => ids.filter((id) => c.messages.find((m) => m.json<{ eventId: string }>().eventId === id)?.event === type);
    expect(order(resumed.eventIds(), 'teammate.idle', resumed)).toEqual(order(expected, 'teammate.idle', reference));
    expect(order(resumed.eventIds(), 'issue.opened', resumed)).toEqual(order(expected, 'issue.opened', reference));
    const all = await sse('?since=all&types=issue.opened');
    await all.until(() => all.messages.length >= 7 && all, 'every ops-leon event');
    expect(all.messages.map((m) => m.json<{ summary: string }>().summary)[0]).toBe('Issue opened (team alpha: issue 0)');
    [reference, resumed, all].forEach((c) => c.close());
  });

  it('sends an event JetStream holds twice (a relay restarted after the duplicate window) to a client once: live, resumed and replayed', async () => {
    const live = await sse('?types=teammate.idle');
    const idle = (name: string, again?: { eventId: string }) =>
      publishEvent(js, 'team-manager', 'teammate.idle', { name, idleAt: new Date().toISOString() }, again ? { eventId: again.eventId, msgId: `${again.eventId}-again` } : {});
    const twice = await idle('twice');
    const between = await idle('between');
    const repeat = await idle('twice', twice);
    expect(repeat.seq).toBeGreaterThan(between.seq); // stored again, not dropped by JetStream
    const last = await idle('last');
    const isLast = (m: { json<T>(): T }) => m.json<{ eventId: string }>().eventId === last.eventId;
    await live.next(isLast, 'the last event, live');
    expect(live.eventIds()).toEqual([twice.eventId, between.eventId, last.eventId]);
    const resumeAfterFirstCopy = live.messages[0].id!;
    live.close();

    const resumed = await sse('?types=teammate.idle', admin, { 'last-event-id': resumeAfterFirstCopy });
    await resumed.next(isLast, 'the last event, resumed');
    expect(resumed.eventIds()).toEqual([between.eventId, last.eventId]);
    const replayed = await sse('?since=all&types=teammate.idle');
    await replayed.next(isLast, 'the last event, replayed');
    expect(replayed.eventIds().filter((id) => id === twice.eventId)).toHaveLength(1);
    expect(hub.stats.repeats).toBeGreaterThanOrEqual(1);
    [resumed, replayed].forEach((c) => c.close());
  });

  it('starts at a point in time with ?since=<iso time>', async () => {
    await tm('teammate.idle', { name: 'before', idleAt: new Date().toISOString() });
    // The query time has millisecond precision, JetStream's timestamps nanoseconds: step past the
    // millisecond of the earlier event so the boundary falls between the two.
    const step = Date.now() + 2;
    while (Date.now() < step) await new Promise((resolve) => setImmediate(resolve));
    const from = new Date();
    const after1 = await tm('teammate.idle', { name: 'after1', idleAt: new Date().toISOString() });
    const after2 = await tm('teammate.idle', { name: 'after2', idleAt: new Date().toISOString() });
    const client = await sse(`?types=teammate.idle&since=${encodeURIComponent(from.toISOString())}`);
    await client.until(() => client.messages.length >= 2 && client, 'the two later events');
    const live = await tm('teammate.idle', { name: 'live', idleAt: new Date().toISOString() });
    await client.until(() => client.messages.length >= 3 && client, 'the live event');
    expect(client.eventIds()).toEqual([after1.eventId, after2.eventId, live.eventId]);
    expect(client.messages[0].json<{ summary: string }>().summary).toBe('After1 is idle');
    client.close();
  });

  it('drops a client that never reads, without holding up a client that does', async () => {
    await ensureStream(await jetstreamManager(nc), eventStreamFor('ops-leon'));
    await waitFor(() => hub.streamKeys().includes('ops_leon'), { message: 'ops-leon stream followed' });
    const droppedBefore = hub.stats.droppedBy['buffer-overflow'];
    const fast = await sse('?types=issue.big');
    const slow: Socket = netConnect({ host: new URL(base).hostname, port: Number(new URL(base).port) });
    await new Promise((resolve) => slow.once('connect', resolve));
    slow.write(`GET /api/v1/stream?types=issue.big HTTP/1.1\r\nHost: x\r\nx-test-principal: ${JSON.stringify(admin)}\r\n\r\n`);
    slow.pause(); // never reads
    await waitFor(() => hub.stats.clients >= 2, { message: 'both clients connected' });
    const blob = 'x'.repeat(32 * 1024);
    const total = 400;
    for (let i = 0; i < total; i++) await ops('issue.big', { team: 'alpha', i, blob });
    await fast.until(() => fast.messages.length >= total && fast, 'every big event at the fast client', 60_000);
    await waitFor(() => hub.stats.droppedBy['buffer-overflow'] > droppedBefore, { message: 'the slow client dropped' });
    expect(fast.messages.map((m) => m.json<{ data: { i: number } }>().data.i)).toEqual(Array.from({ length: total }, (_, i) => i));
    // Its socket was closed by the gateway: reading what was in flight ends in a close.
    const closed = new Promise((resolve) => slow.once('close', resolve));
    slow.on('error', () => undefined);
    slow.resume();
    await closed;
    fast.close();
  });

  it('replays a backlog far larger than the client buffer at the pace of the client, without dropping it', async () => {
    await ensureStream(await jetstreamManager(nc), eventStreamFor('ops-leon'));
    const blob = 'y'.repeat(32 * 1024);
    // 300 events of 32 KiB: about 37 times SSE_CLIENT_BUFFER_BYTES.
    for (let i = 0; i < 300; i++) await ops('issue.huge', { team: 'alpha', i, blob });
    const droppedBefore = hub.stats.dropped;
    const client = await sse('?since=all&types=issue.huge');
    await client.until(() => client.messages.length >= 300 && client, 'the whole backlog', 60_000);
    expect(client.messages.map((m) => m.json<{ data: { i: number } }>().data.i)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(hub.stats.dropped).toBe(droppedBefore);
    client.close();
  });

  it('survives the deletion of an event stream and follows it again once it is recreated', async () => {
    const jsm = await jetstreamManager(nc);
    await ensureStream(jsm, eventStreamFor('ops-leon'));
    await waitFor(() => hub.streamKeys().includes('ops_leon'), { message: 'ops-leon stream followed' });
    const client = await sse('?types=issue.*');
    await jsm.streams.delete(eventStreamFor('ops-leon').name);
    await waitFor(() => !hub.streamKeys().includes('ops_leon'), { message: 'the tail of the deleted stream stopped' });
    await ensureStream(jsm, eventStreamFor('ops-leon'));
    await waitFor(() => hub.streamKeys().includes('ops_leon'), { message: 'the recreated stream followed again' });
    const { eventId } = await ops('issue.reopened', { team: 'alpha', summary: 'back again' });
    const got = await client.next((m) => m.json<{ eventId: string }>().eventId === eventId, 'the event of the recreated stream');
    expect(got.json<{ summary: string }>().summary).toBe('Issue reopened (team alpha: back again)');
    expect(got.id).toContain('ops_leon=1');
    client.close();
  });

  it('ends open connections on shutdown instead of waiting for them', async () => {
    const a = await sse();
    const b = await sse('?team=alpha');
    await app.close();
    await a.until(() => a.closed, 'a closed');
    await b.until(() => b.closed, 'b closed');
    expect(hub.stats.clients).toBe(0);
  });
});
