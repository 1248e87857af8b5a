import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Module, type DynamicModule } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  exceptionGroupStreamId,
  getNotificationSettings,
  listNotificationDeliveries,
  notificationDeliveryStreamId,
  opsProjectStreamId,
  setNotificationSettings,
  verifyWebhook,
} from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig, NATS_CONNECTION, PlatformModule, type NatsConnection } from '@headspace/platform';
import { createTestDatabase, deleteNamespaceStreams, waitFor, type TestDatabase } from '@headspace/testing';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE, configSchema, type AppConfig } from '../config';
import { OpsLeonStoreModule } from '../ops-leon-store.module';
import { OPS_LEON_MIGRATIONS, NotificationsModule } from './notifications.module';

/** ops-leon's platform (relay on), its store and the notifications module: nothing else of the service runs. */
@Module({})
class NotificationsApp {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: NotificationsApp,
      imports: [PlatformModule.forRoot({ service: SERVICE, config, publishEvents: true, migrationsDirs: [OPS_LEON_MIGRATIONS] }), OpsLeonStoreModule, NotificationsModule],
    };
  }
}

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** The Subject header, unfolded and its RFC 2047 Q-encoded words decoded. */
function subjectOf(raw: string): string {
  const folded = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1] ?? '';
  return folded
    .replace(/\?=\r?\n[ \t]+=\?/g, '?==?')
    .replace(/=\?UTF-8\?Q\?(.*?)\?=/gi, (_m, q: string) =>
      Buffer.from(q.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_h, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'),
    );
}

/** A webhook receiver that answers `statuses[n]` to its n-th request (200 once they run out). */
async function receiver(statuses: number[] = []): Promise<{ url: string; got: Received[]; server: Server }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      res.writeHead(statuses[got.length - 1] ?? 200).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, server };
}

describe('Leon notifications: signed webhooks with retries and email, from group lifecycle events', { timeout: 60_000 }, () => {
  const namespace = `olnotify-${randomBytes(3).toString('hex')}`;
  const secret = `whsec_${randomBytes(16).toString('hex')}`;
  const slackSecret = `whsec_${randomBytes(16).toString('hex')}`;
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let nc: NatsConnection;
  let store: EventStore;
  let smtp: SMTPServer;
  const mails: Array<{ to: string[]; raw: string }> = [];
  const servers: Server[] = [];

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        let raw = '';
        stream.on('data', (c: Buffer) => (raw += c.toString('utf8')));
        stream.on('end', () => {
          mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
          callback();
        });
      },
    });
    smtp.listen(0, '127.0.0.1');
    await once(smtp.server, 'listening');
    db = await createTestDatabase('olnotify');
    const env = {
      DATABASE_URL: db.url,
      NATS_URL: process.env.NATS_URL,
      LOG_LEVEL: 'error',
      HS_NAMESPACE: namespace,
      HS_OPS_SECRET_KEY: randomBytes(32).toString('base64'),
      HS_SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
      HS_OPS_NOTIFY_BACKOFF_MS: '100',
      HS_OPS_NOTIFY_POLL_MS: '50',
      HS_OPS_NOTIFY_MAX_ATTEMPTS: '3',
    };
    app = await createServiceApp(NotificationsApp.forRoot(loadConfig(configSchema, env, SERVICE)), { bufferLogs: false });
    await app.init();
    nc = app.get<NatsConnection>(NATS_CONNECTION);
    store = app.get(EventStore);
  });

  afterAll(async () => {
    await app?.close();
    for (const s of servers) s.close();
    await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
    await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
    await db?.drop();
  });

  const createProject = (project: string) =>
    store.append(opsProjectStreamId(project), [
      { type: 'project.created', data: { project, projectId: String(1_000 + Math.floor(Math.random() * 1e6)), displayName: project, repository: '/tmp/x', trusted: false, environments: [], createdBy: 'spec', at: new Date().toISOString() } },
    ], { expected: 'no-stream' });

  const at = () => new Date().toISOString();
  const groupIdFor = () => `grp_${randomBytes(12).toString('hex')}`;
  /** Opens a group and moves it to ANALYSING; triage (when given) makes it `severity`. */
  const driveGroup = async (project: string, severity?: 'critical' | 'error' | 'warning') => {
    const groupId = groupIdFor();
    const base = { groupId, project };
    const stream = exceptionGroupStreamId(groupId);
    await store.append(stream, [
      { type: 'group.opened', data: { ...base, projectId: '1', fingerprint: 'fp', type: 'TypeError', title: 'Cannot read properties of undefined', culprit: 'app in checkout', level: 'error', firstEventId: 'e'.repeat(32), at: at() } },
    ], { expected: 'no-stream' });
    await store.append(stream, [{ type: 'group.analysing-started', data: { ...base, from: 'NEW', to: 'ANALYSING', by: 'leon', at: at() } }], { expected: 1n });
    if (severity) {
      await store.append(stream, [
        { type: 'group.triaged', data: { ...base, from: 'ANALYSING', to: 'ANALYSING', by: 'leon', reason: 'unhandled in checkout', severity, domain: 'backend', persona: 'con', autoFixable: true, hypothesis: 'null cart', at: at() } },
      ], { expected: 2n });
    }
    return groupId;
  };
  const deliveryEvents = async (deliveryId: string) => (await store.readStream(notificationDeliveryStreamId(deliveryId))).map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));

  it('refuses a new webhook without a secret (naming the field) and settings of an unknown project, writing nothing', async () => {
    await createProject('refused');
    await expect(
      request(nc, setNotificationSettings, { project: 'refused', webhooks: [{ id: 'ops', url: 'http://127.0.0.1:9/x' }] }),
    ).rejects.toMatchObject({ code: 'CONTRACTS.VALIDATION_FAILED', field: 'webhooks.0.secret' });
    await expect(request(nc, setNotificationSettings, { project: 'nowhere', webhooks: [] })).rejects.toMatchObject({ code: 'OPS.PROJECT_NOT_FOUND', field: 'project' });
    await expect(request(nc, getNotificationSettings, { project: 'refused' })).rejects.toMatchObject({ code: 'NOTIFICATION.SETTINGS_NOT_FOUND' });
  });

  it('delivers every transition to the webhook, signed with its secret; Slack bodies and email for the critical group; no secret in the log', async () => {
    const hook = await receiver();
    const slack = await receiver();
    servers.push(hook.server, slack.server);
    await createProject('shop');
    const saved = await request(nc, setNotificationSettings, {
      project: 'shop',
      webhooks: [
        { id: 'ops', url: hook.url, secret },
        { id: 'chat', url: slack.url, secret: slackSecret, format: 'slack', minSeverity: 'critical' },
      ],
      email: { to: ['oncall@example.com'], minSeverity: 'error' },
    });
    expect(saved.webhooks.map((w) => ({ id: w.id, secretSet: w.secretSet }))).toEqual([{ id: 'ops', secretSet: true }, { id: 'chat', secretSet: true }]);
    expect(JSON.stringify(saved)).not.toContain(secret);
    expect(JSON.stringify(await request(nc, getNotificationSettings, { project: 'shop' }))).not.toContain(secret);

    const groupId = await driveGroup('shop', 'critical');
    await waitFor(() => hook.got.length >= 3 && slack.got.length >= 1 && mails.length >= 1, { message: 'three webhook deliveries, one Slack, one email' });

    const bodies = hook.got.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(bodies.map((b) => [b.eventType, b.from, b.to, b.severity])).toEqual([
      ['group.opened', null, 'NEW', null],
      ['group.analysing-started', 'NEW', 'ANALYSING', null],
      ['group.triaged', 'ANALYSING', 'ANALYSING', 'critical'],
    ]);
    expect(bodies.every((b) => b.groupId === groupId && b.project === 'shop' && b.title === 'Cannot read properties of undefined')).toBe(true);
    const nowSeconds = Math.floor(Date.now() / 1_000);
    for (const r of hook.got) {
      expect(verifyWebhook(secret, r.body, r.headers['headspace-signature'] as string, { now: nowSeconds }).ok).toBe(true);
      expect(verifyWebhook(slackSecret, r.body, r.headers['headspace-signature'] as string, { now: nowSeconds }).ok).toBe(false);
      expect(r.headers['headspace-delivery']).toMatch(/^dlv_[0-9a-f]{24}$/);
    }

    expect(slack.got).toHaveLength(1);
    const slackBody = JSON.parse(slack.got[0].body) as { text: string; blocks: Array<{ type: string }> };
    expect(slackBody.text).toContain('[critical] shop: Cannot read properties of undefined');
    expect(slackBody.blocks.map((b) => b.type)).toEqual(['section', 'context']);
    expect(verifyWebhook(slackSecret, slack.got[0].body, slack.got[0].headers['headspace-signature'] as string, { now: nowSeconds }).ok).toBe(true);

    expect(mails).toHaveLength(1);
    expect(mails[0].to).toEqual(['oncall@example.com']);
    expect(subjectOf(mails[0].raw)).toBe('[Headspace] [critical] shop: Cannot read properties of undefined (ANALYSING → ANALYSING)');
    expect(mails[0].raw).toContain(groupId);

    const { rows } = await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ops_leon.events WHERE data::text LIKE $1 OR data::text LIKE $2`, [`%${secret}%`, `%${slackSecret}%`]);
    expect(rows[0].n).toBe('0');
    const listed = await request(nc, listNotificationDeliveries, { project: 'shop' });
    await waitFor(async () => (await request(nc, listNotificationDeliveries, { project: 'shop' })).items.every((d) => d.state === 'succeeded'), { message: 'all succeeded' });
    expect(listed.items).toHaveLength(5);
  });

  it('retries a failing receiver with exponential backoff until it answers, recording each attempt', async () => {
    const flaky = await receiver([503, 500]);
    servers.push(flaky.server);
    await createProject('flaky');
    await request(nc, setNotificationSettings, { project: 'flaky', webhooks: [{ id: 'ops', url: flaky.url, secret, events: ['NEW'] }] });
    await driveGroup('flaky');
    await waitFor(() => flaky.got.length >= 3, { message: 'three tries' });
    const ids = new Set(flaky.got.map((r) => r.headers['headspace-delivery']));
    expect(ids.size).toBe(1);
    expect(flaky.got.map((r) => r.headers['headspace-attempt'])).toEqual(['1', '2', '3']);
    for (const r of flaky.got) expect(verifyWebhook(secret, r.body, r.headers['headspace-signature'] as string, { now: Math.floor(Date.now() / 1_000) }).ok).toBe(true);

    const [deliveryId] = [...ids] as string[];
    const events = await waitFor(async () => {
      const e = await deliveryEvents(deliveryId);
      return e.at(-1)?.type === 'notification-delivery.succeeded' ? e : undefined;
    });
    expect(events.map((e) => [e.type, e.data.ok ?? null, e.data.httpStatus ?? null])).toEqual([
      ['notification-delivery.scheduled', null, null],
      ['notification-delivery.attempted', false, 503],
      ['notification-delivery.attempted', false, 500],
      ['notification-delivery.attempted', true, 200],
      ['notification-delivery.succeeded', null, null],
    ]);
    // 100 ms after the first failure, 200 ms after the second (HS_OPS_NOTIFY_BACKOFF_MS=100, doubling).
    const waits = events.filter((e) => e.data.nextAttemptAt).map((e) => Date.parse(e.data.nextAttemptAt as string) - Date.parse(e.data.attemptedAt as string));
    expect(waits).toEqual([100, 200]);
    expect(flaky.got[2].at - flaky.got[1].at).toBeGreaterThanOrEqual(200);
  });

  it('gives up after the last attempt and records the delivery as failed', async () => {
    const down = await receiver([500, 500, 500, 500]);
    servers.push(down.server);
    await createProject('down');
    await request(nc, setNotificationSettings, { project: 'down', webhooks: [{ id: 'ops', url: down.url, secret, events: ['NEW'] }] });
    await driveGroup('down');
    const failed = await waitFor(async () => (await request(nc, listNotificationDeliveries, { project: 'down' })).items.find((d) => d.state === 'failed'), { message: 'delivery failed' });
    expect(failed).toMatchObject({ attempts: 3, lastError: 'HTTP 500 Internal Server Error', channel: 'webhook', target: 'ops' });
    expect(down.got).toHaveLength(3);
  });
});
