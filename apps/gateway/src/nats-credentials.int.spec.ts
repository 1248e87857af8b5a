import { randomBytes } from 'node:crypto';
import { createServiceApp, loadConfig, NATS_CONNECTION, type NatsConnection } from '@headspace/platform';
import { createTestDatabase, startLockedNatsServer, waitFor, type LockedNatsServer, type TestDatabase } from '@headspace/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the service behind the route it calls; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../team-manager/src/config';
import { AppModule } from './app.module';
import { SERVICE, configSchema } from './config';
import { StreamHub } from './stream/stream-hub';

/** The gateway with its own NATS credentials on a locked server (ARCHITECTURE.md §9, docs/adr/0012). */
describe('the gateway on a NATS server that holds it to its own subjects', () => {
  const namespace = `gwcred-${randomBytes(3).toString('hex')}`;
  const adminToken = `hst_test_admin_${randomBytes(24).toString('base64url')}`;
  let locked: LockedNatsServer;
  let db: TestDatabase;
  const apps: NestFastifyApplication[] = [];
  let gateway: NestFastifyApplication;

  beforeAll(async () => {
    locked = await startLockedNatsServer({ namespace });
    db = await createTestDatabase('gwcred');
    const env = (service: typeof SERVICE) => ({ DATABASE_URL: db.url, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, ...locked.envFor(service) });
    for (const module of [
      TeamManagerModule.forRoot(loadConfig(teamManagerConfig, env(TEAM_MANAGER), TEAM_MANAGER)),
      AppModule.forRoot(loadConfig(configSchema, { ...env(SERVICE), HS_ADMIN_TOKEN: adminToken }, SERVICE)),
    ]) {
      const app = await createServiceApp(module, { bufferLogs: false });
      await app.init();
      apps.push(app);
    }
    gateway = apps[1];
    await gateway.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
    await locked?.dispose();
    await db?.drop();
  });

  it('sends the API\'s commands to the team-manager and tails its event stream for SSE', async () => {
    const hub = gateway.get(StreamHub);
    await waitFor(() => hub.streamKeys().includes('team_manager'), { message: 'the hub found the team-manager stream' });
    const seen = hub.stats.events;
    const http = gateway.getHttpAdapter().getInstance() as FastifyInstance;
    const res = await http.inject({ method: 'POST', url: '/api/v1/teams', payload: { name: 'front-door' }, headers: { authorization: `Bearer ${adminToken}` } });
    expect(res.statusCode).toBe(201);
    await waitFor(() => hub.stats.events > seen, { message: 'team.created reached the SSE hub through an ordered consumer' });
  });

  it("cannot serve another service's commands nor publish events", async () => {
    const nc = gateway.get<NatsConnection>(NATS_CONNECTION);
    const errors: string[] = [];
    void (async () => {
      for await (const s of nc.status()) if (s.type === 'error') errors.push(String(s.error?.message));
    })();
    nc.subscribe(`${namespace}.hs.cmd.team-manager.>`);
    nc.publish(`${namespace}.hs.evt.team-manager.team.created`, '{}');
    await nc.flush();
    await waitFor(() => errors.length >= 2, { message: 'both violations were reported' });
    expect(errors).toEqual(
      expect.arrayContaining([
        `Permissions Violation for Subscription to "${namespace}.hs.cmd.team-manager.>"`,
        `Permissions Violation for Publish to "${namespace}.hs.evt.team-manager.team.created"`,
      ]),
    );
  });
});
