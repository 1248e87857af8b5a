import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Query, type Pool, type PoolClient } from 'pg';
import { createTestDatabase, waitFor, type TestDatabase } from '@headspace/testing';
import { PgClient } from './pg-client';

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase('pgclient');
  pool = db.newPool({ Client: PgClient, max: 2 });
});
afterAll(() => db?.drop());

async function onClient<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await work(client);
  } finally {
    client.release();
  }
}

describe('PgClient', () => {
  it('hands pg the callback with the query: a promise-form query reaches Client#query in callback form', async () => {
    const seen: unknown[][] = [];
    const real = Client.prototype.query;
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      seen.push(args);
      return (real as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof real;
    try {
      const { rows } = await onClient((client) => client.query<{ n: number }>({ text: 'SELECT $1::int AS n', values: [7] }));
      expect(rows).toEqual([{ n: 7 }]);
    } finally {
      Client.prototype.query = real;
    }
    expect(seen).toHaveLength(1);
    expect(typeof seen[0][2]).toBe('function');
  });

  it('resolves text, parameterised and multi-statement queries as pg does', async () => {
    await onClient(async (client) => {
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      expect((await client.query('SELECT $1::text AS t', ['x'])).rows).toEqual([{ t: 'x' }]);
      await client.query('BEGIN');
      await client.query('CREATE TEMP TABLE t (n int) ON COMMIT DROP');
      const results = (await client.query('INSERT INTO t VALUES (1), (2); SELECT sum(n)::int AS s FROM t')) as unknown as { rows: unknown[] }[];
      expect(results.map((r) => r.rows)).toEqual([[], [{ s: 3 }]]);
      await client.query('COMMIT');
    });
  });

  it('rejects with the server error, its code, and a stack that leads back to the caller', async () => {
    const error = (await onClient((client) => client.query('SELECT * FROM no_such_table')).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error & { code?: string };
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('42P01');
    expect(error.message).toContain('no_such_table');
    expect(error.stack).toContain('pg-client.int.spec');
  });

  it('leaves callback-form and submittable queries to pg', async () => {
    await onClient(async (client) => {
      const viaCallback = await new Promise((resolve, reject) => client.query('SELECT 2 AS two', (e: Error | null, r: { rows: unknown[] }) => (e ? reject(e) : resolve(r.rows))));
      expect(viaCallback).toEqual([{ two: 2 }]);
      const viaConfig = await new Promise((resolve, reject) => {
        const config = { text: 'SELECT 4 AS four', callback: (e: Error | null, r: { rows: unknown[] }) => (e ? reject(e) : resolve(r.rows)) };
        void client.query(config as unknown as string);
      });
      expect(viaConfig).toEqual([{ four: 4 }]);
      const query = new Query('SELECT 3 AS three');
      const rows: unknown[] = [];
      query.on('row', (row) => rows.push(row));
      const returned = client.query(query);
      expect(returned).toBe(query);
      await new Promise((resolve) => query.on('end', resolve));
      expect(rows).toEqual([{ three: 3 }]);
    });
  });

  it('survives losing its connection while checked out: nothing emits an unhandled error, queries reject and the pool replaces it', async () => {
    const client = await pool.connect();
    // An `error` event nobody listens for throws out of the socket's handler: an uncaught exception.
    const thrown: unknown[] = [];
    const emit = client.emit.bind(client);
    client.emit = ((event: string, ...args: unknown[]) => {
      try {
        return emit(event, ...args);
      } catch (error) {
        thrown.push(error);
        return false;
      }
    }) as typeof client.emit;
    let broken: unknown;
    try {
      const ended = new Promise((resolve) => client.once('end', resolve));
      await client.query('BEGIN');
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // Between two statements of a transaction, as a PostgreSQL restart catches a busy service.
      await db.pool.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      broken = await waitFor(() => client.query('SELECT 1').then(() => false, (error: unknown) => error), { message: 'the dead connection to fail a query' });
      await ended;
    } finally {
      client.release();
    }
    expect(thrown).toEqual([]);
    expect(broken).toBeInstanceOf(Error);
    expect((client as unknown as PgClient).connectionError).toBeInstanceOf(Error); // read ECONNRESET, 57P01 or 'Connection terminated unexpectedly'
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});
