import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@headspace/testing';
import { ConcurrencyError } from './concurrency-error';
import { deterministicEventId } from './event-id';
import { appendManyStatement } from './append-many';
import { EventStore } from './event-store';
import { migrate } from './migrate';

const schema = 'es';
let db: TestDatabase;
let store: EventStore;

const stream = (label: string) => `thing-${label}-${randomUUID()}`;
const ev = (n: number) => ({ type: 'thing.happened', data: { n } });
const numbers = async (id: string) => (await store.readStream(id)).map((e) => [e.streamVersion, (e.data as { n: number }).n]);

beforeAll(async () => {
  db = await createTestDatabase('appendmany');
  await migrate(db.pool, { schema });
  store = new EventStore({ pool: db.pool, schema });
});
afterAll(() => db?.drop());

describe('appendMany', () => {
  it('appends to new and existing streams in one go, chaining entries on the same stream, with deterministic ids', async () => {
    const [a, b] = [stream('a'), stream('b')];
    await store.append(a, [ev(1)], { expected: 'no-stream' });
    const results = await store.appendMany([
      { streamId: a, events: [ev(2), ev(3)], expected: 1n, commandId: 'c1' },
      { streamId: b, events: [ev(10)], expected: 'no-stream', commandId: 'c1' },
      { streamId: a, events: [ev(4)], expected: 3n, commandId: 'c2' },
    ]);
    expect(results.map((r) => [r.streamId, r.nextExpectedVersion, r.eventIds.length, r.replayed])).toEqual([
      [a, 3n, 2, false],
      [b, 1n, 1, false],
      [a, 4n, 1, false],
    ]);
    expect(results[2].eventIds).toEqual([deterministicEventId('c2', a, 0)]);
    expect(results[0].firstPosition < results[2].firstPosition).toBe(true);
    expect(await numbers(a)).toEqual([[1n, 1], [2n, 2], [3n, 3], [4n, 4]]);
    expect(await numbers(b)).toEqual([[1n, 10]]);
    expect(await store.streamVersion(a)).toBe(4n);
  });

  it('writes nothing on any stream when one expected version is wrong, and names that stream', async () => {
    const [a, b, c] = [stream('a'), stream('b'), stream('c')];
    await store.append(a, [ev(1)], { expected: 'no-stream' });
    await store.append(b, [ev(1), ev(2)], { expected: 'no-stream' });
    const error = await store
      .appendMany([
        { streamId: a, events: [ev(2)], expected: 1n },
        { streamId: b, events: [ev(3)], expected: 1n },
        { streamId: c, events: [ev(1)], expected: 'no-stream' },
      ])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConcurrencyError);
    expect(error).toMatchObject({ streamId: b, expected: 1n, actual: 2n });
    expect([await store.streamVersion(a), await store.streamVersion(b), await store.streamVersion(c)]).toEqual([1n, 2n, null]);
    const exists = await store.appendMany([{ streamId: a, events: [ev(9)], expected: 'no-stream' }]).catch((e: unknown) => e);
    expect(exists).toMatchObject({ streamId: a, actual: 1n });
    expect(await numbers(a)).toEqual([[1n, 1]]);
  });

  it('an exact version of a stream that does not exist fails the call and creates no stream', async () => {
    const [ghost, fresh] = [stream('ghost'), stream('fresh')];
    const error = await store
      .appendMany([
        { streamId: fresh, events: [ev(1)], expected: 'no-stream' },
        { streamId: ghost, events: [ev(4)], expected: 3n },
      ])
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ streamId: ghost, expected: 3n, actual: null });
    expect([await store.streamVersion(ghost), await store.streamVersion(fresh)]).toEqual([null, null]);
  });

  it('moves on a stream that an earlier statement of the same transaction created', async () => {
    const a = stream('a');
    await store.transaction(async (client) => {
      await store.appendMany([{ streamId: a, events: [ev(1)], expected: 'no-stream' }], { client });
      await store.appendMany([{ streamId: a, events: [ev(2)], expected: 1n }], { client });
    });
    expect(await numbers(a)).toEqual([[1n, 1], [2n, 2]]);
  });

  it('reaches streams only by their key: its generic plan scans no streams table, however large', async () => {
    await db.pool.query(`INSERT INTO ${schema}.streams (stream_id, category, version) SELECT 'bulk-' || g, 'bulk', 1 FROM generate_series(1, 20000) g`);
    await db.pool.query(`ANALYZE ${schema}.streams`);
    const client = await db.pool.connect();
    try {
      await client.query(`SET plan_cache_mode = force_generic_plan`);
      await client.query(`PREPARE many_plan (jsonb, jsonb, jsonb) AS ${appendManyStatement(schema)}`);
      const a = stream('a');
      const streams = JSON.stringify([{ id: a, category: 'thing', expected: null, n: 1 }]);
      const events = JSON.stringify([{ stream: a, k: 1, type: 'thing.happened', sv: 1, data: { n: 1 }, meta: {} }]);
      const checks = JSON.stringify([{ id: 'bulk-7', expected: '1' }]);
      const { rows } = await client.query(`EXPLAIN (FORMAT JSON) EXECUTE many_plan(${[streams, events, checks].map((p) => client.escapeLiteral(p)).join(', ')})`);
      const scans: string[] = [];
      const walk = (node: { 'Node Type': string; 'Relation Name'?: string; Plans?: unknown[] }) => {
        if (node['Relation Name'] === 'streams') scans.push(node['Node Type']);
        for (const child of node.Plans ?? []) walk(child as typeof node);
      };
      walk(rows[0]['QUERY PLAN'][0].Plan);
      expect(scans).toContain('Index Scan');
      expect(scans).not.toContain('Seq Scan');
    } finally {
      await client.query('DEALLOCATE many_plan; RESET plan_cache_mode');
      client.release();
    }
  });

  it('checks streams it does not write: a moved or created one fails the call and nothing is written', async () => {
    const [a, read, absent] = [stream('a'), stream('read'), stream('absent')];
    await store.append(read, [ev(1)], { expected: 'no-stream' });
    const checks = [
      { streamId: read, expected: 1n },
      { streamId: absent, expected: 'no-stream' as const },
    ];
    await store.appendMany([{ streamId: a, events: [ev(1)], expected: 'no-stream' }], { checks });
    await expect(store.appendMany([], { checks })).resolves.toEqual([]);
    await store.append(read, [ev(2)], { expected: 1n });
    await expect(store.appendMany([{ streamId: a, events: [ev(2)], expected: 1n }], { checks })).rejects.toMatchObject({ streamId: read, actual: 2n });
    await expect(store.appendMany([], { checks })).rejects.toBeInstanceOf(ConcurrencyError);
    await store.append(absent, [ev(1)], { expected: 'no-stream' });
    await expect(store.appendMany([{ streamId: a, events: [ev(2)], expected: 1n }], { checks: [{ streamId: absent, expected: 'no-stream' }] })).rejects.toMatchObject({
      streamId: absent,
      actual: 1n,
    });
    expect(await store.streamVersion(a)).toBe(1n);
  });

  it('fails a recorded event id (a retried command) as a whole, with the unique violation', async () => {
    const [a, b] = [stream('a'), stream('b')];
    await store.appendMany([{ streamId: a, events: [ev(1)], expected: 'no-stream', commandId: 'once' }]);
    await expect(
      store.appendMany([
        { streamId: b, events: [ev(1)], expected: 'no-stream' },
        { streamId: a, events: [ev(1)], expected: 1n, commandId: 'once' },
      ]),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await store.streamVersion(b)).toBeNull();
  });

  it('refuses inconsistent chains and unsupported expectations before writing', async () => {
    const a = stream('a');
    await expect(store.appendMany([{ streamId: a, events: [ev(1)], expected: 'any' }])).rejects.toThrow(/exact versions and 'no-stream'/);
    await expect(
      store.appendMany([
        { streamId: a, events: [ev(1)], expected: 'no-stream' },
        { streamId: a, events: [ev(2)], expected: 'no-stream' },
      ]),
    ).rejects.toThrow(/expects 0 after earlier entries that leave it at 1/);
    expect(await store.streamVersion(a)).toBeNull();
  });

  it('concurrent calls over the same streams listed in opposite orders: one wins per version, no deadlock, no gaps', async () => {
    const [a, b] = [stream('a'), stream('b')];
    await store.appendMany([
      { streamId: a, events: [ev(0)], expected: 'no-stream' },
      { streamId: b, events: [ev(0)], expected: 'no-stream' },
    ]);
    for (let round = 1; round <= 4; round++) {
      const expected = BigInt(round);
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => {
          const entries = [
            { streamId: a, events: [ev(i)], expected },
            { streamId: b, events: [ev(i)], expected },
          ];
          return store.appendMany(i % 2 ? entries.reverse() : entries);
        }),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConcurrencyError);
    }
    const versions = (id: string) => store.readStream(id).then((events) => events.map((e) => e.streamVersion));
    expect(await versions(a)).toEqual([1n, 2n, 3n, 4n, 5n]);
    expect(await versions(b)).toEqual([1n, 2n, 3n, 4n, 5n]);
  });
});
