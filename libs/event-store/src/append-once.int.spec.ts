import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@headspace/testing';
import { deterministicEventId } from './event-id';
import { appendOnceStatement } from './append-once';
import { EventStore } from './event-store';
import { migrate } from './migrate';

const schema = 'es';
let db: TestDatabase;
let store: EventStore;

const stream = (label: string) => `thing-${label}-${randomUUID()}`;
const ev = (n: number) => ({ type: 'thing.happened', data: { n } });
const numbers = async (id: string) => (await store.readStream(id)).map((e) => [e.streamVersion, (e.data as { n: number }).n]);
const countOf = async (id: string) => Number((await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.events WHERE stream_id = $1`, [id])).rows[0].n);

beforeAll(async () => {
  db = await createTestDatabase('appendonce');
  await migrate(db.pool, { schema });
  store = new EventStore({ pool: db.pool, schema });
});
afterAll(() => db?.drop());

describe('appendOnce', () => {
  it('appends commands to new and existing streams in one statement, numbering each stream on from its version', async () => {
    const [a, b] = [stream('a'), stream('b')];
    await store.append(a, [ev(1)], { expected: 'no-stream' });
    const results = await store.appendOnce([
      { streamId: a, events: [ev(2)], commandId: 'c1' },
      { streamId: b, events: [ev(10), ev(11)], commandId: 'c2' },
      { streamId: a, events: [ev(3)], commandId: 'c3' },
    ]);
    expect(results.map((r) => [r.streamId, r.nextExpectedVersion, r.eventIds.length, r.replayed])).toEqual([
      [a, 2n, 1, false],
      [b, 2n, 2, false],
      [a, 3n, 1, false],
    ]);
    expect(results[1].eventIds).toEqual([deterministicEventId('c2', b, 0), deterministicEventId('c2', b, 1)]);
    expect(results[0].lastTransactionId).toBe(results[2].lastTransactionId);
    expect(await numbers(a)).toEqual([[1n, 1], [2n, 2], [3n, 3]]);
    expect(await numbers(b)).toEqual([[1n, 10], [2n, 11]]);
    expect([await store.streamVersion(a), await store.streamVersion(b)]).toEqual([3n, 2n]);
  });

  it('answers a command recorded before as a replay with its original positions, writing nothing for it, and appends the rest', async () => {
    const a = stream('a');
    const [first] = await store.appendOnce([{ streamId: a, events: [ev(1)], commandId: 'once' }]);
    const [again, other] = await store.appendOnce([
      { streamId: a, events: [ev(99)], commandId: 'once' },
      { streamId: a, events: [ev(2)], commandId: 'next' },
    ]);
    expect(again).toEqual({ ...first, replayed: true });
    expect(other).toMatchObject({ replayed: false, nextExpectedVersion: 2n });
    expect(await numbers(a)).toEqual([[1n, 1], [2n, 2]]);
    expect(await store.streamVersion(a)).toBe(2n);
  });

  it('records the same command given twice in one call once: the later entry is its replay', async () => {
    const a = stream('a');
    const results = await store.appendOnce([
      { streamId: a, events: [ev(1)], commandId: 'twice' },
      { streamId: a, events: [ev(1)], commandId: 'twice' },
    ]);
    expect(results.map((r) => r.replayed)).toEqual([false, true]);
    expect(results[1].eventIds).toEqual(results[0].eventIds);
    expect(await countOf(a)).toBe(1);
    expect(await store.streamVersion(a)).toBe(1n);
  });

  it('records a command once when concurrent calls race on it, every call answered', async () => {
    const a = stream('a');
    const calls = Array.from({ length: 8 }, (_, i) =>
      store.appendOnce([
        { streamId: a, events: [ev(0)], commandId: 'raced' },
        { streamId: a, events: [ev(i + 1)], commandId: `own-${i}` },
      ]),
    );
    const results = await Promise.all(calls);
    expect(results.filter(([raced]) => !raced.replayed)).toHaveLength(1);
    expect(new Set(results.map(([raced]) => raced.eventIds[0])).size).toBe(1);
    expect(results.every(([, own]) => !own.replayed)).toBe(true);
    expect(await countOf(a)).toBe(9);
    expect((await numbers(a)).map(([version]) => version)).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n]);
  });

  it('looks ids up through the unique index, whatever the size of the events table', async () => {
    const params = [JSON.stringify([{ stream: 's', category: 's', id: randomUUID(), type: 't', sv: 1, data: {}, meta: {} }])];
    const { rows } = await db.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${appendOnceStatement(schema)}`, params);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/Index (Only )?Scan using events_event_id_unique/);
    expect(plan).not.toMatch(/Seq Scan on events/);
  });
});
