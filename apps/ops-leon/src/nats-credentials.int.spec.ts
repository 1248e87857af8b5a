import { randomBytes } from 'node:crypto';
import { createServiceApp, loadConfig, NATS_CONNECTION, type NatsConnection } from '@headspace/platform';
import { createTestDatabase, startLockedNatsServer, type LockedNatsServer, type TestDatabase } from '@headspace/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule } from './app.module';
import { SERVICE, configSchema } from './config';

/** ops-leon with its own NATS credentials on a locked server (ARCHITECTURE.md §9, docs/adr/0012). */
describe('ops-leon on a NATS server that holds it to its own subjects', () => {
  const namespace = `olcred-${randomBytes(3).toString('hex')}`;
  let locked: LockedNatsServer;
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let nc: NatsConnection;

  beforeAll(async () => {
    locked = await startLockedNatsServer({ namespace });
    db = await createTestDatabase('olcred');
    const env = { DATABASE_URL: db.url, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, ...locked.envFor(SERVICE) };
    app = await createServiceApp(AppModule.forRoot(loadConfig(configSchema, env, SERVICE)), { bufferLogs: false });
    await app.init();
    nc = app.get<NatsConnection>(NATS_CONNECTION);
  });

  afterAll(async () => {
    await app?.close();
    await locked?.dispose();
    await db?.drop();
  });

  it('is ready with its credentials and may ask the orchestrator for fix runs', async () => {
    const ready = await (app.getHttpAdapter().getInstance() as FastifyInstance).inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    // Allowed: nobody answers here, so the server says "no responders" rather than refusing the publish.
    await expect(nc.request(`${namespace}.hs.cmd.orchestrator.start-run`, '{}', { timeout: 1_000 })).rejects.toThrow(/no responders/i);
  });

  it('may ask the team-manager for fix approvals and the cost-governor before a model call', async () => {
    for (const subject of [`${namespace}.hs.cmd.team-manager.request-approval`, `${namespace}.hs.cmd.cost-governor.may-spend`]) {
      await expect(nc.request(subject, '{}', { timeout: 1_000 })).rejects.toThrow(/no responders/i);
    }
  });

  it("cannot forge the orchestrator's run events nor the team-manager's approval decisions", async () => {
    for (const subject of [`${namespace}.hs.evt.orchestrator.run.completed`, `${namespace}.hs.evt.team-manager.approval.decided`]) {
      await expect(nc.request(subject, '{}', { timeout: 1_000 })).rejects.toThrow(`Permissions Violation for Publish to "${subject}"`);
    }
  });
});
