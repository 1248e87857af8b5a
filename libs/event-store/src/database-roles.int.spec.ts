import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, startPgServer, waitFor, type PgServerHandle, type TestDatabase } from '@headspace/testing';
import { provisionDatabaseRoles, scramVerifier, serviceRolesReady } from './database-roles';
import { EventStore } from './event-store';
import { migrate } from './migrate';
import { ProcessorRunner } from './processor/processor-runner';

// Roles are cluster-wide: the spec runs its own PostgreSQL so its role names collide with nobody's.
let server: PgServerHandle;
let db: TestDatabase;
let readModels: string;
const pools: Pool[] = [];

const plan = {
  migrator: { role: 'hs_migrator' },
  services: [
    { schema: 'team_manager', role: 'hs_team_manager' },
    { schema: 'cost_governor', role: 'hs_cost_governor' },
  ],
};

function poolAs(role: string, password?: string): Pool {
  const url = new URL(db.url);
  url.username = role;
  url.password = password ?? '';
  const pool = new Pool({ connectionString: url.toString(), max: 4 });
  pool.on('error', () => undefined);
  pools.push(pool);
  return pool;
}

/** The SQLSTATE a statement fails with (undefined when it succeeds). */
async function failure(pool: Pool, sql: string): Promise<string | undefined> {
  return pool.query(sql).then(
    () => undefined,
    (error: { code?: string }) => error.code,
  );
}

beforeAll(async () => {
  server = await startPgServer();
  db = await createTestDatabase('roles', { adminUrl: server.url });
  readModels = mkdtempSync(join(tmpdir(), 'hs-roles-'));
  writeFileSync(join(readModels, '0001_tally.sql'), 'CREATE TABLE {{schema}}.tally (stream_id text PRIMARY KEY, n bigint NOT NULL, seq bigserial);');
  // An install from before the roles: the administrator created this schema and owns it.
  await migrate(db.pool, { schema: 'team_manager', dirs: [readModels] });
  await provisionDatabaseRoles(db.pool, plan);
  const migrator = poolAs('hs_migrator');
  for (const { schema, role } of plan.services) await migrate(migrator, { schema, dirs: [readModels], serviceRole: role });
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
  await db?.drop();
  await server?.dispose();
  if (readModels) rmSync(readModels, { recursive: true, force: true });
});

describe('PostgreSQL roles per service', () => {
  it('a service role appends to its streams and projects them with a checkpointed processor', async () => {
    const pool = poolAs('hs_team_manager');
    const store = new EventStore({ pool, schema: 'team_manager' });
    const stream = `task-${randomUUID()}`;
    await store.append(stream, [{ type: 'task.created', data: { n: 1 } }], { expected: 'no-stream', commandId: randomUUID() });
    await store.append(stream, [{ type: 'task.created', data: { n: 2 } }], { expected: 1n });
    const runner = new ProcessorRunner({
      pool,
      schema: 'team_manager',
      name: 'tally',
      pollIntervalMs: 5,
      onError: () => undefined,
      handle: async (events, tx) => {
        for (const e of events) {
          await tx.query(
            `INSERT INTO team_manager.tally (stream_id, n) VALUES ($1, $2) ON CONFLICT (stream_id) DO UPDATE SET n = tally.n + excluded.n`,
            [e.streamId, (e.data as { n: number }).n],
          );
        }
      },
      reset: async (tx) => {
        await tx.query('TRUNCATE team_manager.tally');
      },
    });
    runner.start();
    try {
      const row = await waitFor(async () => (await pool.query(`SELECT n::int FROM team_manager.tally WHERE stream_id = $1 AND n = 3`, [stream])).rows[0], {
        message: 'the tally projection to reach 3',
      });
      expect(row).toEqual({ n: 3 });
      // A rebuild truncates the read model and replays from position 0 under the same role.
      await runner.rebuild();
      await waitFor(async () => (await pool.query(`SELECT n::int FROM team_manager.tally WHERE stream_id = $1 AND n = 3`, [stream])).rows[0], {
        message: 'the rebuilt tally to reach 3 again',
      });
      await pool.query(`INSERT INTO team_manager.inbox (consumer, event_id) VALUES ('spec', $1)`, [randomUUID()]);
    } finally {
      await runner.stop();
    }
  });

  it("cannot update, delete or truncate its own events: the grant is gone, not only the trigger's refusal", async () => {
    const pool = poolAs('hs_team_manager');
    for (const sql of ['UPDATE team_manager.events SET type = type', 'DELETE FROM team_manager.events', 'TRUNCATE team_manager.events']) {
      expect(await failure(pool, sql), sql).toBe('42501'); // insufficient_privilege (the trigger raises HS403)
    }
    // Not its owner either, so it cannot lift the trigger or grant itself the rights back.
    expect(await failure(pool, 'ALTER TABLE team_manager.events DISABLE TRIGGER events_append_only')).toBe('42501');
    expect(await failure(pool, 'GRANT UPDATE ON team_manager.events TO hs_team_manager')).toBeUndefined(); // a no-op warning…
    expect(await failure(pool, 'UPDATE team_manager.events SET type = type')).toBe('42501'); // …that grants nothing
    expect(await failure(pool, 'DELETE FROM team_manager.streams')).toBe('42501');
    expect(await failure(pool, 'CREATE TABLE team_manager.extra (x int)')).toBe('42501');
  });

  it("cannot read or write another service's schema", async () => {
    const pool = poolAs('hs_team_manager');
    expect(await failure(pool, 'SELECT count(*) FROM cost_governor.events')).toBe('42501');
    expect(await failure(pool, 'SELECT count(*) FROM cost_governor.tally')).toBe('42501');
    expect(await failure(pool, `INSERT INTO cost_governor.inbox (consumer, event_id) VALUES ('x', gen_random_uuid())`)).toBe('42501');
    expect(await failure(poolAs('hs_cost_governor'), 'SELECT count(*) FROM team_manager.checkpoints')).toBe('42501');
  });

  it('the migration role owns every schema and table, including those an earlier install created as another user', async () => {
    const { rows } = await db.pool.query<{ owner: string; n: number }>(
      `SELECT owner, count(*)::int AS n FROM (
         SELECT pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname IN ('team_manager', 'cost_governor')
         UNION ALL SELECT tableowner FROM pg_tables WHERE schemaname IN ('team_manager', 'cost_governor')
         UNION ALL SELECT pg_get_userbyid(p.proowner) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                    WHERE n.nspname IN ('team_manager', 'cost_governor')) o
       GROUP BY owner`,
    );
    expect(rows).toEqual([{ owner: 'hs_migrator', n: 2 + 2 * 7 + 2 }]);
  });

  it('tells a supervisor the service roles are ready only when each exists and may use its schema', async () => {
    expect(await serviceRolesReady(db.pool, plan.services)).toBe(true);
    expect(await serviceRolesReady(db.pool, [...plan.services, { schema: 'ops_leon', role: 'hs_ops_leon' }])).toBe(false);
    expect(await serviceRolesReady(db.pool, [{ schema: 'cost_governor', role: 'hs_team_manager' }])).toBe(false);
  });

  it('a service connected as its role migrates nothing when its schema is up to date, and is told who migrates when not', async () => {
    const pool = poolAs('hs_team_manager');
    expect(await migrate(pool, { schema: 'team_manager', dirs: [readModels] })).toEqual([]);
    const newer = mkdtempSync(join(tmpdir(), 'hs-roles-next-'));
    try {
      writeFileSync(join(newer, '0002_more.sql'), 'CREATE TABLE {{schema}}.more (x int);');
      await expect(migrate(pool, { schema: 'team_manager', dirs: [readModels, newer] })).rejects.toThrow(/permission denied.*migrations run as the migration role/);
    } finally {
      rmSync(newer, { recursive: true, force: true });
    }
  });

  it('a password set by provisioning logs the role in under scram-sha-256, and no other password does', async () => {
    const { rows } = await db.pool.query<{ hba_file: string }>('SHOW hba_file');
    const hba = rows[0].hba_file;
    const { readFileSync } = await import('node:fs');
    writeFileSync(hba, `host all hs_secret 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, 'utf8')}`);
    await db.pool.query('SELECT pg_reload_conf()');
    await provisionDatabaseRoles(db.pool, { migrator: plan.migrator, services: [{ schema: 'secret', role: 'hs_secret', password: 'pa$$ word' }] });
    const stored = await db.pool.query<{ p: string }>(`SELECT rolpassword AS p FROM pg_authid WHERE rolname = 'hs_secret'`);
    expect(stored.rows[0].p).toMatch(/^SCRAM-SHA-256\$4096:/);
    await waitFor(async () => (await failure(poolAs('hs_secret', 'wrong'), 'SELECT 1')) === '28P01', { message: 'scram auth to apply' });
    expect(await failure(poolAs('hs_secret', 'pa$$ word'), 'SELECT 1')).toBeUndefined();
    expect(scramVerifier('x', Buffer.alloc(16), 4096)).toBe(scramVerifier('x', Buffer.alloc(16), 4096));
  });
});
