import { randomBytes } from 'node:crypto';
import { Pool, type PoolConfig } from 'pg';

export interface TestDatabase {
  name: string;
  url: string;
  pool: Pool;
  /** Another pool on the same database (a second replica, a raw client for assertions). */
  newPool(config?: PoolConfig): Pool;
  drop(): Promise<void>;
}

export function adminDatabaseUrl(): string {
  return process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

/**
 * A fresh database per spec file so specs run in parallel without seeing each other's rows.
 * Drop it in afterAll; leftovers from a crashed run are harmless (`hs_t_` prefix, dropped by `dropStaleTestDatabases`).
 * `adminUrl`: another server's admin database (a spec's own cluster, see startPgServer).
 */
export async function createTestDatabase(label = 'spec', options: { adminUrl?: string } = {}): Promise<TestDatabase> {
  const adminUrl = options.adminUrl ?? adminDatabaseUrl();
  const name = `hs_t_${label.replace(/[^a-z0-9]/gi, '').toLowerCase().slice(0, 20)}_${randomBytes(4).toString('hex')}`;
  const admin = new Pool({ connectionString: adminUrl, max: 1 });
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pools: Pool[] = [];
  const newPool = (config: PoolConfig = {}) => {
    const pool = new Pool({ connectionString: url.toString(), max: 10, ...config });
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  };
  const pool = newPool();
  return {
    name,
    url: url.toString(),
    pool,
    newPool,
    async drop() {
      await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
      const dropper = new Pool({ connectionString: adminUrl, max: 1 });
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

export async function dropStaleTestDatabases(olderThanMinutes = 60): Promise<number> {
  const admin = new Pool({ connectionString: adminDatabaseUrl(), max: 1 });
  try {
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database d WHERE datname LIKE 'hs\\_t\\_%'
         AND (pg_stat_file('base/' || d.oid || '/PG_VERSION')).modification < now() - make_interval(mins => $1)`,
      [olderThanMinutes],
    );
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    return rows.length;
  } finally {
    await admin.end();
  }
}
