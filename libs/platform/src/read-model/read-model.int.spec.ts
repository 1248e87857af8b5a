import { Module, type DynamicModule } from '@nestjs/common';
import { defineEntity, p } from '@mikro-orm/postgresql';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { asDatabaseUnavailable } from '@headspace/event-store';
import { createTestDatabase, waitFor, type TestDatabase } from '@headspace/testing';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceApp } from '../bootstrap';
import { baseConfigSchema } from '../config/base-config.schema';
import { loadConfig } from '../config/load-config';
import { PlatformModule } from '../platform.module';
import { ReadModelModule } from './read-model.module';
import { ReadModel } from './read-model';

const SERVICE = 'read-model-spec';
const BEYOND_DOUBLE = '9007199254740993'; // 2^53 + 1: a Number would read it as ...992

// The event store's own table: real rows the service's migrations created, mapped read-only.
const Stream = defineEntity({
  name: 'Stream',
  tableName: 'streams',
  properties: {
    streamId: p.string().primary(),
    category: p.string(),
    version: p.bigint('string'),
    updatedAt: p.datetime(),
  },
});

@Module({})
class ReadAppModule {
  static forRoot(databaseUrl: string): DynamicModule {
    const config = loadConfig(
      baseConfigSchema,
      { HTTP_PORT: '3998', DATABASE_URL: databaseUrl, NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', LOG_LEVEL: 'warn', SHUTDOWN_TIMEOUT_MS: '5000' },
      SERVICE,
    );
    return { module: ReadAppModule, imports: [PlatformModule.forRoot({ service: SERVICE, config }), ReadModelModule.forEntities([Stream])] };
  }
}

const schema = 'read_model_spec';

describe('ReadModel: MikroORM over the service pool and schema', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  let reads: ReadModel;
  // One connection of the spec's own, so every other backend on the database is the app's.
  let sql: Pool;
  let closed = false;

  beforeAll(async () => {
    db = await createTestDatabase('readmodel');
    app = await createServiceApp(ReadAppModule.forRoot(db.url), { bufferLogs: false });
    await app.init();
    reads = app.get(ReadModel);
    sql = db.newPool({ max: 1 });
    await sql.query(`INSERT INTO ${schema}.streams (stream_id, category, version, updated_at) VALUES ('task-1', 'task', $1, '2026-01-02T03:04:05.678Z')`, [BEYOND_DOUBLE]);
  });
  afterAll(async () => {
    if (!closed) await app?.close();
    await db?.drop();
  });

  it('maps a row of a migrated table with bigint columns as exact strings', async () => {
    const row = await reads.em().findOneOrFail(Stream, { streamId: 'task-1' });
    expect(row).toMatchObject({ streamId: 'task-1', category: 'task', version: BEYOND_DOUBLE });
    expect(row.updatedAt.toISOString()).toBe('2026-01-02T03:04:05.678Z');
  });

  it('lists rows under their property names and types without managing them', async () => {
    const rows = await reads.rows(Stream, { category: 'task' }, { orderBy: [{ streamId: 'asc' }], limit: 10 });
    expect(rows).toEqual([{ streamId: 'task-1', category: 'task', version: BEYOND_DOUBLE, updatedAt: new Date('2026-01-02T03:04:05.678Z') }]);
  });

  it('gives each query its own EntityManager, so a later query sees rows written since', async () => {
    const first = reads.em();
    expect((await first.findOneOrFail(Stream, { streamId: 'task-1' })).version).toBe(BEYOND_DOUBLE);
    await sql.query(`UPDATE ${schema}.streams SET version = version + 1 WHERE stream_id = 'task-1'`);
    const second = reads.em();
    expect(second).not.toBe(first);
    expect((await second.findOneOrFail(Stream, { streamId: 'task-1' })).version).toBe('9007199254740994');
  });

  it('closes its connections when the app closes, and a query after that is DATABASE.UNAVAILABLE', async () => {
    const open = async () => Number((await sql.query(`SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [db.name])).rows[0].count);
    await reads.em().count(Stream, {});
    expect(await open()).toBeGreaterThan(0);
    await app.close();
    closed = true;
    // Refused the way any query on a lost database is: DATABASE.UNAVAILABLE (503), never INTERNAL.
    const refusal = await reads.em().count(Stream, {}).then(() => undefined, (error: unknown) => error);
    expect(asDatabaseUnavailable(refusal)?.code).toBe('DATABASE.UNAVAILABLE');
    // Well inside pg's 10 s idle timeout: the connections were ended, not left to expire.
    await waitFor(async () => (await open()) === 0, { timeoutMs: 5_000, message: 'service connections closed' });
  });
});
