import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTask, createTeam, setSubjectNamespace } from '@headspace/contracts';
import type { CloudEvent } from '@headspace/messaging';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { createTestDatabase, deleteNamespaceStreams, startServiceProcess, waitFor, type ServiceProcess, type TestDatabase } from '@headspace/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the service whose events it follows; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../../team-manager/src/config';
import { WebhookReceiver } from './testing/webhook-receiver';

const TASKS = 150;
const SECRET = 'whsec_crash_0123456789abcdef';

/**
 * The gateway as a real process on its TypeScript sources, SIGKILLed (no shutdown hook runs) while
 * it delivers a team's task events to a receiver, and started again while more are appended:
 * every event reaches the receiver at least once, and the first copies arrive in log order.
 */
describe('gateway killed while delivering webhooks', () => {
  const namespace = `whcrash-${randomBytes(3).toString('hex')}`;
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const adminToken = `hst_crash_${randomBytes(24).toString('base64url')}`;
  const secretKey = randomBytes(32).toString('hex');
  const receiver = new WebhookReceiver();
  let db: TestDatabase;
  let nc: NatsConnection;
  let teamManager: NestFastifyApplication;
  let gateway: ServiceProcess | undefined;
  const startGateway = () =>
    startServiceProcess('gateway', {
      DATABASE_URL: db.url,
      NATS_URL: natsUrl,
      HS_NAMESPACE: namespace,
      HS_ADMIN_TOKEN: adminToken,
      HS_WEBHOOK_SECRET_KEY: secretKey,
      HS_WEBHOOK_POLL_MS: '20',
      HS_WEBHOOK_BACKOFF_MS: '50',
      HS_WEBHOOK_ALLOW_PRIVATE: 'true',
    });

  beforeAll(async () => {
    setSubjectNamespace(namespace);
    await receiver.start();
    db = await createTestDatabase('whcrash');
    nc = await connect({ servers: natsUrl, name: `spec-${namespace}` });
    teamManager = await createServiceApp(
      TeamManagerModule.forRoot(loadConfig(teamManagerConfig, { DATABASE_URL: db.url, NATS_URL: natsUrl, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace }, TEAM_MANAGER)),
      { bufferLogs: false },
    );
    await teamManager.init();
    gateway = await startGateway();
  }, 90_000);

  afterAll(async () => {
    await gateway?.kill();
    await teamManager?.close();
    if (nc) {
      await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
      await nc.close();
    }
    await db?.drop();
    await receiver.stop();
  });

  it('a kill -9 mid-stream loses no event: each reaches the receiver at least once, first copies in log order', async () => {
    const res = await fetch(`http://127.0.0.1:${gateway!.port}/api/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${receiver.url}/crash`, eventTypes: ['task.created'], secret: SECRET }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    await request(nc, createTeam, { name: 'crashy' });
    // Appends go on at a steady pace through the kill and the restart, so both the consumers and
    // the sweeper are mid-stream when the process dies.
    const appending = (async () => {
      for (let i = 0; i < TASKS; i++) {
        await request(nc, createTask, { team: 'crashy', subject: `task ${i}` });
        await sleep(15);
      }
    })();
    await waitFor(() => receiver.requests.length >= TASKS / 6 || undefined, { timeoutMs: 30_000, intervalMs: 5, message: 'some deliveries before the kill' });
    await gateway!.kill();
    const atKill = receiver.requests.length;
    gateway = await startGateway();
    await appending;

    const created = (await db.pool.query<{ event_id: string; global_position: string }>(`SELECT event_id, global_position FROM team_manager.events WHERE type = 'task.created' ORDER BY global_position`)).rows;
    expect(created).toHaveLength(TASKS);
    const firstCopies = () => {
      const seen = new Map<string, CloudEvent>();
      for (const r of receiver.delivered('/crash')) {
        const e = JSON.parse(r.body) as CloudEvent;
        if (!seen.has(e.id)) seen.set(e.id, e);
      }
      return [...seen.values()];
    };
    const received = await waitFor(() => firstCopies().length >= TASKS && firstCopies(), { timeoutMs: 60_000, intervalMs: 50, message: 'every task event at the receiver' });
    expect(atKill).toBeLessThan(TASKS);
    expect(received.map((e) => e.id)).toEqual(created.map((r) => r.event_id));
  }, 150_000);
});
