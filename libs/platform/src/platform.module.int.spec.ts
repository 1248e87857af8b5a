import { Module, type DynamicModule } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase, type TestDatabase } from '@headspace/testing';
import { meter, startTelemetry } from '@headspace/telemetry';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceApp } from './bootstrap';
import { baseConfigSchema } from './config/base-config.schema';
import { loadConfig } from './config/load-config';
import { MetricsServer, metricsPortOf } from './metrics/metrics-server';
import { PlatformModule } from './platform.module';
import { NATS_CONNECTION, PG_POOL, SERVICE_SCHEMA } from './platform.tokens';

const SERVICE = 'platform-spec';
const specCounter = meter.createCounter('hs_platform_spec_requests_total');

@Module({})
class TinyAppModule {
  static forRoot(databaseUrl: string): DynamicModule {
    const config = loadConfig(
      baseConfigSchema,
      {
        HTTP_PORT: '3999',
        DATABASE_URL: databaseUrl,
        NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
        LOG_LEVEL: 'warn',
        SHUTDOWN_TIMEOUT_MS: '5000',
      },
      SERVICE,
    );
    return { module: TinyAppModule, imports: [PlatformModule.forRoot({ service: SERVICE, config })] };
  }
}

async function boot(db: TestDatabase): Promise<NestFastifyApplication> {
  const app = await createServiceApp(TinyAppModule.forRoot(db.url), { bufferLogs: false });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

async function get(app: NestFastifyApplication, url: string) {
  const res = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url });
  return { status: res.statusCode, type: String(res.headers['content-type']), body: res.body };
}

describe('PlatformModule with real PostgreSQL and NATS', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    startTelemetry({ serviceName: SERVICE, env: {} });
    db = await createTestDatabase('platform');
    app = await boot(db);
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('is live and ready when PostgreSQL answers and NATS round-trips', async () => {
    expect(await get(app, '/health/live')).toMatchObject({ status: 200 });
    const ready = await get(app, '/health/ready');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toMatchObject({
      status: 'ok',
      info: { postgres: { status: 'up' }, nats: { status: 'up' }, service: { status: 'up' } },
    });
  });

  it('serves Prometheus text at /metrics on the internal metrics port only, not on the public HTTP port', async () => {
    specCounter.add(2, { route: 'spec' });
    const { port } = await app.get(MetricsServer).listen('127.0.0.1', 0);
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    const body = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(body).toMatch(/^# TYPE hs_platform_spec_requests_total counter$/m);
    expect(body).toMatch(/^hs_platform_spec_requests_total\{route="spec"(,[^}]*)?\} 2$/m);
    expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(404);
    expect((await get(app, '/metrics')).status).toBe(404);
  });

  it('puts the metrics port at HTTP_PORT + 1000 unless METRICS_PORT says otherwise, bound to 127.0.0.1 by default', () => {
    const env = { DATABASE_URL: db.url, NATS_URL: 'nats://127.0.0.1:4222' };
    const plain = loadConfig(baseConfigSchema, { ...env, HTTP_PORT: '3002' }, SERVICE);
    expect([metricsPortOf(plain), plain.METRICS_HOST]).toEqual([4002, '127.0.0.1']);
    expect(metricsPortOf(loadConfig(baseConfigSchema, { ...env, HTTP_PORT: '3002', METRICS_PORT: '9464' }, SERVICE))).toBe(9464);
    expect(() => loadConfig(baseConfigSchema, { ...env, HTTP_PORT: '3002', METRICS_PORT: 'x' }, SERVICE)).toThrow(/METRICS_PORT/);
  });

  it('migrated the service schema and keeps int8/xid8 as strings with an idle-in-transaction timeout', async () => {
    const pool = app.get<Pool>(PG_POOL);
    expect(app.get(SERVICE_SCHEMA)).toBe('platform_spec');
    const { rows: migrations } = await pool.query('select name from platform_spec.schema_migrations');
    expect(migrations.length).toBeGreaterThan(0);
    const { rows } = await pool.query(
      `select 9007199254740993::int8 as big, array[9007199254740993::int8] as bigs,
              pg_current_xact_id() as xid, current_setting('idle_in_transaction_session_timeout') as idle`,
    );
    expect(rows[0]).toEqual({ big: '9007199254740993', bigs: ['9007199254740993'], xid: expect.stringMatching(/^\d+$/), idle: '30s' });
  });

  it('answers 503 naming nats when the NATS connection is closed, then closes the pool on shutdown', async () => {
    const other = await boot(db);
    const nats = other.get<NatsConnection>(NATS_CONNECTION);
    await nats.close();
    const ready = await get(other, '/health/ready');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({
      status: 'error',
      error: { nats: { status: 'down', message: 'connection closed' } },
      info: { postgres: { status: 'up' } },
    });

    const pool = other.get<Pool>(PG_POOL);
    await other.close();
    expect(pool.ended).toBe(true);
  });

  it('drains NATS and ends the pool when the app closes', async () => {
    const other = await boot(db);
    const nats = other.get<NatsConnection>(NATS_CONNECTION);
    const pool = other.get<Pool>(PG_POOL);
    await other.close();
    expect(nats.isClosed()).toBe(true);
    expect(pool.ended).toBe(true);
    // The first app still serves: one service's shutdown touches only its own connections.
    expect((await get(app, '/health/ready')).status).toBe(200);
  });
});
