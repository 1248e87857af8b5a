import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { quoteIdent } from './quote-ident';

export const EVENT_STORE_MIGRATIONS = join(__dirname, '..', 'migrations');

export interface MigrateOptions {
  /** The service's schema; every `{{schema}}` in the SQL files becomes this (quoted) name. */
  schema: string;
  /** Extra folders of `NNNN_name.sql` files applied after the event store's own. */
  dirs?: string[];
}

/**
 * Applies hand-written SQL migrations to one service schema, each once, in file-name order, each in
 * its own transaction, under an advisory lock so concurrent replicas starting together are safe.
 * Written here rather than taken from a migration library because the same SQL set is stamped into
 * five service schemas (function bodies included), which those tools do not template.
 */
export async function migrate(pool: Pool, options: MigrateOptions): Promise<string[]> {
  const schema = quoteIdent(options.schema);
  const files = await migrationFiles([EVENT_STORE_MIGRATIONS, ...(options.dirs ?? [])]);
  const applied: string[] = [];
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`headspace-migrate:${options.schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ name: string }>(`SELECT name FROM ${schema}.schema_migrations`);
    const done = new Set(rows.map((r) => r.name));
    for (const file of files) {
      if (done.has(file.name)) continue;
      const sql = (await readFile(file.path, 'utf8')).replaceAll('{{schema}}', schema);
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query(`INSERT INTO ${schema}.schema_migrations (name) VALUES ($1)`, [file.name]);
        await client.query('COMMIT');
        applied.push(file.name);
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${file.name} failed in schema ${options.schema}: ${(error as Error).message}`, { cause: error });
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`headspace-migrate:${options.schema}`]).catch(() => undefined);
    client.release();
  }
  return applied;
}

async function migrationFiles(dirs: string[]): Promise<Array<{ name: string; path: string }>> {
  const files: Array<{ name: string; path: string }> = [];
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    const names = (await readdir(dir)).filter((n) => /^\d{4}_[\w-]+\.sql$/.test(n)).sort();
    const prefix = dir === EVENT_STORE_MIGRATIONS ? 'event-store' : dir.split(/[\\/]/).slice(-3).join('/');
    files.push(...names.map((name) => ({ name: `${prefix}/${name}`, path: join(dir, name) })));
  }
  return files;
}
