import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Pool, PoolClient } from 'pg';
import { grantServiceRole } from './database-roles';
import { quoteIdent } from './quote-ident';

export const EVENT_STORE_MIGRATIONS = join(__dirname, '..', 'migrations');

export interface MigrateOptions {
  /** The service's schema; every `{{schema}}` in the SQL files becomes this (quoted) name. */
  schema: string;
  /** Extra folders of `NNNN_name.sql` files applied after the event store's own. */
  dirs?: string[];
  /**
   * The role the service connects as (docs/adr/0015): after migrating, in the same lock, it gets
   * its schema's grants (events: SELECT and INSERT only). Run as the migration role, the owner.
   */
  serviceRole?: string;
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
  const lock = `headspace-migrate:${options.schema}`;
  let locked = false;
  try {
    // A service connected as its own role may create nothing: when its schema is up to date
    // (migrated beforehand by the migration role) nothing is attempted.
    if (!options.serviceRole && (await pendingFiles(client, options.schema, files)).length === 0) return applied;
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [lock]);
    locked = true;
    await client
      .query(
        `CREATE SCHEMA IF NOT EXISTS ${schema};
         CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      )
      .catch((error: unknown) => {
        throw new Error(`cannot create schema ${options.schema}: ${(error as Error).message}${permissionHint(error)}`, { cause: error });
      });
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
        throw new Error(`migration ${file.name} failed in schema ${options.schema}: ${(error as Error).message}${permissionHint(error)}`, { cause: error });
      }
    }
    if (options.serviceRole) await grantsInTransaction(client, options.schema, options.serviceRole);
  } finally {
    if (locked) await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lock]).catch(() => undefined);
    client.release();
  }
  return applied;
}

async function grantsInTransaction(client: PoolClient, schema: string, role: string): Promise<void> {
  const { rows } = await client.query<{ me: string }>('SELECT current_user AS me');
  if (rows[0].me === role) return; // the owner itself: nothing to restrict
  await client.query('BEGIN');
  try {
    await grantServiceRole(client, schema, role);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

/** The files not yet recorded in the schema's `schema_migrations` (all when it does not exist). */
async function pendingFiles<F extends { name: string }>(client: PoolClient, schema: string, files: F[]): Promise<F[]> {
  const { rows: found } = await client.query<{ ok: boolean }>(
    `SELECT CASE WHEN to_regclass($1) IS NULL THEN false ELSE has_table_privilege($1, 'SELECT') END AS ok`,
    [`${quoteIdent(schema)}.schema_migrations`],
  );
  if (!found[0].ok) return files;
  const { rows } = await client.query<{ name: string }>(`SELECT name FROM ${quoteIdent(schema)}.schema_migrations`);
  const done = new Set(rows.map((r) => r.name));
  return files.filter((f) => !done.has(f.name));
}

/** PostgreSQL's "insufficient privilege": say who is meant to migrate. */
function permissionHint(error: unknown): string {
  return (error as { code?: string }).code === '42501'
    ? ' (with per-service roles, migrations run as the migration role: `npm run migrate`, see docs/adr/0015)'
    : '';
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
