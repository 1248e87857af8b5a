import { randomBytes } from 'node:crypto';
import { createTeam, getTeam, namespacedStreamName } from '@headspace/contracts';
import { request, sendRequest } from '@headspace/messaging';
import { createServiceApp, loadConfig, NATS_CONNECTION, type NatsConnection } from '@headspace/platform';
import { createTestDatabase, startLockedNatsServer, waitFor, type LockedNatsServer, type TestDatabase } from '@headspace/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule } from './app.module';
import { SERVICE, configSchema } from './config';

/** The team-manager with its own NATS credentials on a locked server (ARCHITECTURE.md §9, docs/adr/0012). */
describe('the team-manager on a NATS server that holds it to its own subjects', () => {
  const namespace = `tmcred-${randomBytes(3).toString('hex')}`;
  let locked: LockedNatsServer;
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let gateway: NatsConnection;

  beforeAll(async () => {
    locked = await startLockedNatsServer({ namespace });
    db = await createTestDatabase('tmcred');
    const env = { DATABASE_URL: db.url, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, ...locked.envFor(SERVICE) };
    app = await createServiceApp(AppModule.forRoot(loadConfig(configSchema, env, SERVICE)), { bufferLogs: false });
    await app.init();
    gateway = await locked.connectAs('gateway');
  });

  afterAll(async () => {
    await app?.close();
    await gateway?.close();
    await locked?.dispose();
    await db?.drop();
  });

  it('serves its commands and queries and relays its events to its stream', async () => {
    const { position } = await sendRequest(gateway, createTeam, { name: 'locked' });
    expect(await request(gateway, getTeam, { name: 'locked' }, { minPosition: position })).toMatchObject({ name: 'locked' });

    const admin = await locked.connectAs('admin');
    try {
      const jsm = await jetstreamManager(admin);
      const stream = namespacedStreamName('HS_EVT_TEAM_MANAGER');
      const subject = `${namespace}.hs.evt.team-manager.team.created`;
      // getMessage answers null (not an error) until the relay has published the event.
      const stored = await waitFor(() => jsm.streams.getMessage(stream, { last_by_subj: subject }).then((m) => m ?? undefined, () => undefined), {
        message: 'the relay published team.created',
      });
      expect(stored.json<{ data: { name: string } }>().data.name).toBe('locked');
    } finally {
      await admin.close();
    }
  });

  it("cannot send the cost-governor's commands nor publish another service's events on its own connection", async () => {
    const nc = app.get<NatsConnection>(NATS_CONNECTION);
    await expect(nc.request(`${namespace}.hs.cmd.cost-governor.set-budget`, '{}', { timeout: 1_000 })).rejects.toThrow(
      `Permissions Violation for Publish to "${namespace}.hs.cmd.cost-governor.set-budget"`,
    );
    await expect(nc.request(`${namespace}.hs.qry.orchestrator.list-runs`, '{}', { timeout: 1_000 })).rejects.toThrow(/Permissions Violation for Publish/);
  });
});
