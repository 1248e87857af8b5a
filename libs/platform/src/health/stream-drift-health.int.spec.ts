import { randomBytes } from 'node:crypto';
import { Module, type DynamicModule } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ensureStream, eventStreamFor } from '@headspace/messaging';
import { createTestDatabase, type TestDatabase } from '@headspace/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceApp } from '../bootstrap';
import { baseConfigSchema } from '../config/base-config.schema';
import { loadConfig } from '../config/load-config';
import { PlatformModule } from '../platform.module';
import { NATS_CONNECTION } from '../platform.tokens';

const SERVICE = 'drift-spec';

@Module({})
class DriftAppModule {
  static forRoot(databaseUrl: string): DynamicModule {
    const env = { HTTP_PORT: '3998', DATABASE_URL: databaseUrl, NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', LOG_LEVEL: 'error', HS_STREAM_MAX_AGE: '1h' };
    return { module: DriftAppModule, imports: [PlatformModule.forRoot({ service: SERVICE, config: loadConfig(baseConfigSchema, env, SERVICE) })] };
  }
}

describe('stream drift in the health details', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  const service = `drift-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    db = await createTestDatabase('driftspec');
    app = await createServiceApp(DriftAppModule.forRoot(db.url), { bufferLogs: false });
    await app.init();
  });
  afterAll(async () => {
    if (app) await (await jetstreamManager(app.get<NatsConnection>(NATS_CONNECTION))).streams.delete(eventStreamFor(service).name).catch(() => undefined);
    await app?.close();
    await db?.drop();
  });

  it('lists a stream an operator raised above the configuration under nats in /health/ready, which stays up', async () => {
    const jsm = await jetstreamManager(app.get<NatsConnection>(NATS_CONNECTION));
    const spec = eventStreamFor(service); // carries the app's configured limits (HS_STREAM_MAX_AGE=1h)
    await ensureStream(jsm, spec);
    const { config } = await jsm.streams.info(spec.name);
    expect(config.max_age).toBe(nanos(3_600_000));
    await jsm.streams.update(spec.name, { ...config, max_age: 0 });
    await ensureStream(jsm, spec);

    const res = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/health/ready' });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body).info.nats.streamDrift).toContainEqual({ stream: spec.name, field: 'max_age', wanted: nanos(3_600_000), actual: 0 });
  });
});
