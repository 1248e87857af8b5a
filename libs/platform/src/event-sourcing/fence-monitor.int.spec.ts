import { Logger, Module, type DynamicModule } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase, waitFor, type TestDatabase } from '@headspace/testing';
import { startTelemetry } from '@headspace/telemetry';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServiceApp } from '../bootstrap';
import { baseConfigSchema } from '../config/base-config.schema';
import { loadConfig } from '../config/load-config';
import { MetricsServer } from '../metrics/metrics-server';
import { PlatformModule } from '../platform.module';

const SERVICE = 'fence-spec';

@Module({})
class FenceSpecModule {
  static forRoot(databaseUrl: string): DynamicModule {
    const config = loadConfig(
      baseConfigSchema,
      { HTTP_PORT: '3998', DATABASE_URL: databaseUrl, NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', LOG_LEVEL: 'warn', HS_FENCE_WARN_MS: '300' },
      SERVICE,
    );
    return { module: FenceSpecModule, imports: [PlatformModule.forRoot({ service: SERVICE, config })] };
  }
}

describe('the fence monitor names the backend holding the xid8 fence', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  beforeAll(async () => {
    startTelemetry({ serviceName: SERVICE, env: {} });
    db = await createTestDatabase('fence');
    app = await createServiceApp(FenceSpecModule.forRoot(db.url), { bufferLogs: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    metricsUrl = `http://127.0.0.1:${(await app.get(MetricsServer).listen('127.0.0.1', 0)).port}/metrics`;
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  let metricsUrl: string;
  const metrics = async () => (await fetch(metricsUrl)).text();

  it('logs a warning and exports the age of a transaction left open past the threshold, with its pid and application name', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const holder = new pg.Client({ connectionString: db.url, application_name: 'fence-spec-holder' });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      const { rows } = await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_current_xact_id()');
      const pid = rows[0].pid;
      // The fence is cluster-wide: an older transaction of another spec may be reported first, until it ends.
      const gauge = (name: string, text: string) => Number(new RegExp(`^${name}\\{[^}]*service="${SERVICE}"[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1]);
      // The fence is cluster-wide: an older transaction of another spec may be reported first, until it ends.
      const text = await waitFor(async () => {
        const body = await metrics();
        return gauge('headspace_event_store_fence_holder_pid', body) === pid ? body : undefined;
      }, { message: `fence_holder_pid ${pid}` });
      expect(gauge('headspace_event_store_fence_held', text)).toBeGreaterThanOrEqual(0.3);
      const logged = warn.mock.calls.map((call) => String(call[0])).find((message) => message.includes(`backend pid ${pid} `));
      expect(logged).toMatch(/^xid8 fence held for \d+\.\d s by PostgreSQL backend pid \d+ \(application_name "fence-spec-holder", idle in transaction, transaction started /);

      await holder.query('COMMIT');
      await waitFor(async () => gauge('headspace_event_store_fence_holder_pid', await metrics()) !== pid, { message: 'the holder pid to go once its transaction ended' });
    } finally {
      warn.mockRestore();
      await holder.end();
    }
  });
});
