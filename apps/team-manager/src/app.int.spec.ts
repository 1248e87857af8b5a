import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import * as contracts from '@headspace/contracts';
import { ErrorCodes, type HeadspaceError, type RequestDefinition } from '@headspace/contracts';
import { JetStreamTransport, sendRequest } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { createTestDatabase, deleteNamespaceStreams, type TestDatabase } from '@headspace/testing';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule } from './app.module';
import { SERVICE, configSchema } from './config';

const namespace = `tm-app-${process.pid}`;

describe('team-manager app module', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    db = await createTestDatabase('team-manager-app');
    const config = loadConfig(
      configSchema,
      { DATABASE_URL: db.url, NATS_URL: process.env.NATS_URL, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace },
      SERVICE,
    );
    app = await createServiceApp(AppModule.forRoot(config), { bufferLogs: false });
    await app.init();
  });
  afterAll(async () => {
    const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    await deleteNamespaceStreams(nc, namespace).finally(() => nc.close());
    await app?.close();
    await db?.drop();
  });

  it('boots against real PostgreSQL and NATS and reports ready', async () => {
    const res = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/health/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'ok',
      info: { postgres: { status: 'up' }, nats: { status: 'up' } },
    });
  });

  it('migrated its own schema', async () => {
    const { rows } = await db.pool.query(
      `select count(*)::int as n from information_schema.tables where table_schema = 'team_manager'`,
    );
    expect(rows[0].n).toBeGreaterThan(0);
  });

  // Last: it stops the app's serving.
  it('serves every team-manager command and query through the transport strategy alone', async () => {
    const definitions = (Object.values(contracts) as unknown[]).filter(
      (value): value is RequestDefinition => typeof value === 'object' && value !== null && 'kind' in value && 'request' in value && (value as RequestDefinition).service === SERVICE,
    );
    const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    // A NUL character is refused before any handler runs, so probing a command writes nothing.
    const answers = () =>
      Promise.all(
        definitions.map((definition) =>
          sendRequest(nc, definition, { probe: 'nul\u0000' } as never, { timeoutMs: 5_000 }).then(
            () => `${definition.name}: answered`,
            (error: HeadspaceError) => `${definition.name}: ${error.code}${error.field ? ` (${error.field})` : ''}`,
          ),
        ),
      );
    try {
      expect(definitions.length).toBeGreaterThan(40);
      expect(await answers()).toEqual(definitions.map((d) => `${d.name}: ${ErrorCodes.validationFailed} (probe)`));
      await app.get(JetStreamTransport, { strict: false }).close();
      expect(await answers()).toEqual(definitions.map((d) => `${d.name}: ${ErrorCodes.serviceUnavailable}`));
    } finally {
      await nc.close();
    }
  });
});
