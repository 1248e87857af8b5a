import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { claimTask, completeTask, createTasks } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { followEvents, StreamRefusedError, type HeadspaceEvent } from '@headspace/subscriber-sdk';
import { startTelemetry } from '@headspace/telemetry';
import { createTestDatabase, deleteNamespaceStreams, waitFor, type TestDatabase } from '@headspace/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule as GatewayModule } from '../app.module';
import { SERVICE as GATEWAY, configSchema as gatewayConfig } from '../config';
// The e2e spec boots the real services it exercises; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../../team-manager/src/config';
import { CuttingProxy } from './testing/cutting-proxy';
import { SseTestClient } from './testing/sse-test-client';

/**
 * The subscriber SDK against the real gateway and team-manager (real PostgreSQL, NATS, sockets):
 * CloudEvents frames, resuming across connections a proxy cuts mid-frame, and replay from a time.
 */
describe('subscriber SDK following a team over SSE', () => {
  const namespace = `e2e-sdk-${randomBytes(3).toString('hex')}`;
  const adminToken = `admin-${randomBytes(20).toString('hex')}`;
  const team = 'zephyr';
  let db: TestDatabase;
  let nc: NatsConnection;
  let base: string;
  let proxy: CuttingProxy;
  const apps: NestFastifyApplication[] = [];
  const open: SseTestClient[] = [];
  const auth = { authorization: `Bearer ${adminToken}` };
  const env = () => ({ DATABASE_URL: db.url, NATS_URL: process.env.NATS_URL, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, HS_ADMIN_TOKEN: adminToken });
  const sse = async (query: string, headers: Record<string, string> = auth) => {
    const client = await SseTestClient.open(`${base}/api/v1/stream${query}`, headers);
    open.push(client);
    return client;
  };
  const cloudIds = (c: SseTestClient) => c.messages.map((m) => m.json<{ id: string }>().id);
  /** One task through its life: created (with the task-list event), claimed, completed — four events. */
  const workTask = async (id: string) => {
    await request(nc, createTasks, { team, tasks: [{ id, subject: `Task ${id}` }] });
    await request(nc, claimTask, { team, taskId: id, owner: 'con' });
    await request(nc, completeTask, { team, taskId: id, owner: 'con', result: 'done' });
  };
  const isCompletionOf = (id: string) => (e: { type: string; data: unknown }) => e.type === 'headspace.task.completed' && (e.data as { taskId: string }).taskId === id;

  beforeAll(async () => {
    startTelemetry({ serviceName: 'headspace-e2e' });
    process.env.HS_ADMIN_TOKEN = adminToken;
    process.env.SSE_HEARTBEAT_MS = '200';
    db = await createTestDatabase('ssesdk');
    const boot = async (module: Parameters<typeof createServiceApp>[0]) => {
      const app = await createServiceApp(module, { bufferLogs: false });
      apps.push(app);
      return app;
    };
    const teamManager = await boot(TeamManagerModule.forRoot(loadConfig(teamManagerConfig, env(), TEAM_MANAGER)));
    await teamManager.init();
    const gateway = await boot(GatewayModule.forRoot(loadConfig(gatewayConfig, env(), GATEWAY)));
    await gateway.listen(0, '127.0.0.1');
    base = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
    proxy = await CuttingProxy.start(new URL(base));
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    const created = await fetch(`${base}/api/v1/teams`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: team, leadAgentType: 'architect' }),
    });
    expect(created.status).toBe(201);
  });

  afterAll(async () => {
    for (const c of open) c.close();
    await proxy?.close();
    for (const app of apps.reverse()) await app.close();
    if (nc) await deleteNamespaceStreams(nc, namespace).finally(() => nc.close());
    await db?.drop();
  });

  it('yields every event of the team once, in order, across connections cut mid-frame', async () => {
    const abort = new AbortController();
    const reconnects: number[] = [];
    const follower = followEvents({ url: proxy.url, token: adminToken, teams: [team], since: 'all', signal: abort.signal, reconnect: { initialMs: 20, maxMs: 200 }, onReconnect: ({ delayMs }) => reconnects.push(delayMs) });
    const received: HeadspaceEvent[] = [];
    const tasks = Array.from({ length: 12 }, (_, i) => `t${i}`);
    // Each task only after the follower saw the previous one: the cuts then always fall while
    // events are still to come (a loaded machine could otherwise deliver all of them before the
    // follower asks for the first cut, and no chunk would be left to cut).
    const work = (async () => {
      for (const id of tasks) {
        await workTask(id);
        await waitFor(() => received.some(isCompletionOf(id)), { message: `the follower saw ${id} completed`, timeoutMs: 20_000 });
      }
    })();
    for await (const event of follower) {
      received.push(event);
      // Cut while events are still being appended, and again while a resume is replaying.
      if (received.length === 6 || received.length === 20 || received.length === 21) proxy.cutMidFrame();
      if (isCompletionOf(tasks.at(-1)!)(event)) break;
    }
    await work;
    abort.abort();
    const reference = await sse(`?team=${team}&format=cloudevents&since=all`);
    await reference.next((m) => isCompletionOf(tasks.at(-1)!)(m.json()), 'the last completion');

    expect(proxy.cuts).toBeGreaterThanOrEqual(2);
    expect(reconnects.length).toBeGreaterThanOrEqual(2);
    const ids = received.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(cloudIds(reference));
    expect(received.filter((e) => e.type === 'headspace.task.completed').map((e) => (e.type === 'headspace.task.completed' ? e.data.taskId : ''))).toEqual(tasks);
    expect(follower.lastEventId).toMatch(/^v1:team_manager=[0-9a-z]+$/);
  });

  it('replays from a time with since: exactly the events appended after it', async () => {
    const live = await sse(`?team=${team}&format=cloudevents`);
    await live.until(() => live.comments.includes('connected'), 'the stream to open');
    const since = new Date();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await workTask('late');
    await live.next((m) => isCompletionOf('late')(m.json()), 'the late completion');

    const received: HeadspaceEvent[] = [];
    for await (const event of followEvents({ url: base, token: adminToken, teams: [team], since })) {
      received.push(event);
      if (isCompletionOf('late')(event)) break;
    }
    expect(received.map((e) => e.id)).toEqual(cloudIds(live));
    expect(received.map((e) => e.type)).toEqual(['headspace.tasklist.tasks-added', 'headspace.task.created', 'headspace.task.claimed', 'headspace.task.completed']);
    expect(received.every((e) => e.time >= since.toISOString())).toBe(true);
  });

  it('sends CloudEvents frames on format=cloudevents, with the same resumable ids as the default form', async () => {
    const cloud = await sse(`?team=${team}&format=cloudevents&since=all&types=task.*`);
    const plain = await sse(`?team=${team}&since=all&types=task.*`);
    await cloud.next((m) => isCompletionOf('late')(m.json()), 'the late completion (cloudevents)');
    await plain.next((m) => m.json<{ type: string; data: { taskId: string } }>().type === 'task.completed' && m.json<{ data: { taskId: string } }>().data.taskId === 'late', 'the late completion');

    expect(cloud.messages.map((m) => m.id)).toEqual(plain.messages.map((m) => m.id));
    expect(cloudIds(cloud)).toEqual(plain.eventIds());
    for (const m of cloud.messages) {
      expect(m.event).toBeUndefined();
      const e = m.json<Record<string, unknown>>();
      expect(e).toMatchObject({
        specversion: '1.0',
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        source: '/headspace/team-manager',
        type: expect.stringMatching(/^headspace\.task\.[a-z-]+$/),
        subject: expect.stringMatching(new RegExp(`^task-${team}\\.`)),
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
        datacontenttype: 'application/json',
        dataschema: expect.stringMatching(/^#\/components\/messages\/task\.[a-z-]+\.v\d+$/),
        hsposition: expect.stringMatching(/^\d+$/),
        data: expect.objectContaining({ taskId: expect.any(String) }),
      });
      if ('traceparent' in e) expect(e.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/);
    }
    expect(cloud.messages.some((m) => 'traceparent' in m.json())).toBe(true);
  });

  it('answers a bad since or format with a 400 naming the field, and the SDK stops on a refused token', async () => {
    const badSince = await sse('?since=yesterday');
    await badSince.until(() => badSince.closed && badSince, 'the problem body');
    expect(badSince.status).toBe(400);
    expect(badSince.body).toContain('since');
    const badFormat = await sse('?format=xml');
    await badFormat.until(() => badFormat.closed && badFormat, 'the problem body');
    expect(badFormat.status).toBe(400);
    expect(badFormat.body).toContain('format');
    const refused = followEvents({ url: base, token: 'nope' }).next();
    await expect(refused).rejects.toBeInstanceOf(StreamRefusedError);
    await expect(refused).rejects.toMatchObject({ status: 401 });
  });
});
