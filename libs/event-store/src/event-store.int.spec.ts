import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventRegistry, ValidationError, defineEvent } from '@headspace/contracts';
import { createTestDatabase, type TestDatabase } from '@headspace/testing';
import { ConcurrencyError } from './concurrency-error';
import { EventStore, priorResultIn } from './event-store';
import { migrate } from './migrate';
import { withRetry } from './retry';

const schema = 'es';
let db: TestDatabase;
let store: EventStore;

const stream = (label: string) => `thing-${label}-${randomUUID()}`;
const ev = (n: number) => ({ type: 'thing.happened', data: { n } });

beforeAll(async () => {
  db = await createTestDatabase('eventstore');
  await migrate(db.pool, { schema });
  store = new EventStore({ pool: db.pool, schema });
});
afterAll(() => db?.drop());

describe('append and read', () => {
  it('numbers stream versions from 1 and reads them back in order', async () => {
    const id = stream('read');
    const first = await store.append(id, [ev(1), ev(2)], { expected: 'no-stream' });
    const second = await store.append(id, [ev(3)], { expected: first.nextExpectedVersion });
    expect(first.nextExpectedVersion).toBe(2n);
    expect(second.nextExpectedVersion).toBe(3n);
    const events = await store.readStream(id);
    expect(events.map((e) => [e.streamVersion, (e.data as { n: number }).n])).toEqual([[1n, 1], [2n, 2], [3n, 3]]);
    expect(events[0].category).toBe('thing');
    expect(typeof events[0].transactionId).toBe('string');
    expect(events[0].globalPosition < events[2].globalPosition).toBe(true);
  });

  it('aggregate folds the stream and reports version 0 for a missing stream', async () => {
    const id = stream('agg');
    await store.append(id, [ev(2), ev(5)], { expected: 'any' });
    const sum = await store.aggregate(id, (s: number, e) => s + (e.data as { n: number }).n, 0);
    expect(sum).toEqual({ state: 7, version: 2n });
    expect(await store.aggregate(stream('none'), (s: number) => s + 1, 0)).toEqual({ state: 0, version: 0n });
  });

  it('enforces no-stream, stream-exists and exact expected versions with ConcurrencyError', async () => {
    const id = stream('expect');
    await expect(store.append(id, [ev(1)], { expected: 'stream-exists' })).rejects.toBeInstanceOf(ConcurrencyError);
    await expect(store.append(id, [ev(1)], { expected: 1n })).rejects.toBeInstanceOf(ConcurrencyError);
    await store.append(id, [ev(1)], { expected: 'no-stream' });
    const dup = await store.append(id, [ev(1)], { expected: 'no-stream' }).catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(ConcurrencyError);
    expect((dup as ConcurrencyError).code).toBe('EVENTSTORE.WRONG_EXPECTED_VERSION');
    expect((dup as ConcurrencyError).actual).toBe(1n);
    await expect(store.append(id, [ev(2)], { expected: 'stream-exists' })).resolves.toMatchObject({ nextExpectedVersion: 2n });
    await expect(store.append(id, [ev(3)], { expected: 'any' })).resolves.toMatchObject({ nextExpectedVersion: 3n });
  });

  it('16 concurrent appenders with the same expected version: exactly one wins per version, no gaps or duplicates', async () => {
    const id = stream('race');
    await store.append(id, [ev(0)], { expected: 'no-stream' });
    const appenders = 16;
    const rounds = 5;
    let wins = 0;
    let conflicts = 0;
    for (let round = 0; round < rounds; round++) {
      const expected = BigInt(round + 1);
      const results = await Promise.allSettled(
        Array.from({ length: appenders }, (_, i) => store.append(id, [ev(i)], { expected })),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      expect(won).toHaveLength(1);
      for (const r of lost) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrencyError);
      wins += won.length;
      conflicts += lost.length;
    }
    expect(wins).toBe(rounds);
    expect(conflicts).toBe(rounds * (appenders - 1));
    const versions = (await store.readStream(id)).map((e) => e.streamVersion);
    expect(versions).toEqual(Array.from({ length: rounds + 1 }, (_, i) => BigInt(i + 1)));
  });

  it('a retried command (same command id) appends nothing new and returns the first result', async () => {
    const id = stream('retry');
    const commandId = randomUUID();
    const first = await store.append(id, [ev(1), ev(2)], { expected: 'no-stream', commandId });
    const again = await store.append(id, [ev(1), ev(2)], { expected: 'no-stream', commandId });
    expect(first.replayed).toBe(false);
    expect(again).toEqual({ ...first, replayed: true });
    expect(await store.priorResult(id, commandId)).toEqual({ ...first, replayed: true });
    expect(await store.priorResult(id, 'never-ran')).toBeNull();
    const history = await store.readStream(id);
    expect(history).toHaveLength(2);
    // The same answer from a stream a handler has read anyway, after another command appended to it.
    await store.append(id, [ev(9)], { expected: 2n, commandId: 'later' });
    const longer = await store.readStream(id);
    expect(priorResultIn(longer, commandId)).toEqual({ ...first, replayed: true });
    expect(priorResultIn(longer, 'later')).toEqual({ ...(await store.priorResult(id, 'later'))!, replayed: true });
    expect(priorResultIn(history, 'never-ran')).toBeNull();
    const concurrent = await Promise.all(Array.from({ length: 8 }, () => store.append(id, [ev(3)], { expected: 'any', commandId: 'twin' })));
    expect(new Set(concurrent.map((r) => r.lastPosition)).size).toBe(1);
    expect(await store.readStream(id)).toHaveLength(4);
  });

  it('withRetry re-runs a command handler that lost a race and succeeds on a fresh read', async () => {
    const id = stream('withretry');
    await store.append(id, [ev(0)], { expected: 'no-stream' });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        withRetry(async () => {
          const { version } = await store.aggregate(id, (s: number) => s, 0);
          return store.append(id, [ev(i)], { expected: version });
        }, { maxAttempts: 20 }),
      ),
    );
    expect(results.map((r) => r.nextExpectedVersion).sort()).toEqual([2n, 3n, 4n, 5n, 6n, 7n]);
  });
});

describe('the log is append-only', () => {
  it('UPDATE, DELETE and TRUNCATE on events are refused by the database', async () => {
    const id = stream('immutable');
    await store.append(id, [ev(1)], { expected: 'no-stream' });
    await expect(db.pool.query(`UPDATE ${schema}.events SET data = '{}' WHERE stream_id = $1`, [id])).rejects.toThrow(/append-only/);
    await expect(db.pool.query(`DELETE FROM ${schema}.events WHERE stream_id = $1`, [id])).rejects.toThrow(/append-only/);
    await expect(db.pool.query(`TRUNCATE ${schema}.events`)).rejects.toThrow(/append-only/);
    expect(await store.readStream(id)).toHaveLength(1);
  });
});

describe('contracts are enforced on write and on read', () => {
  const widgetAdded = defineEvent({
    service: 'team-manager',
    category: 'widget',
    name: 'added',
    schema: z.object({ name: z.string().min(1), size: z.number().int().positive() }),
  });
  const registry = new EventRegistry([widgetAdded]);

  it('a bad payload is refused with a ValidationError naming the field, and nothing is written', async () => {
    const typed = new EventStore({ pool: db.pool, schema, registry });
    const id = stream('widget');
    const error = await typed.append(id, [{ type: widgetAdded.type, data: { name: 'x', size: -1 } }], { expected: 'no-stream' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe('data.size');
    expect((error as ValidationError).code).toBe('CONTRACTS.VALIDATION_FAILED');
    expect(await typed.streamVersion(id)).toBeNull();
    await expect(typed.append(id, [{ type: 'widget.unknown', data: {} }], { expected: 'any' })).rejects.toMatchObject({ code: 'CONTRACTS.UNKNOWN_EVENT_TYPE' });
  });

  it('an event that no longer matches its contract fails on read with the field named', async () => {
    const untyped = new EventStore({ pool: db.pool, schema });
    const typed = new EventStore({ pool: db.pool, schema, registry });
    const id = stream('widget');
    await untyped.append(id, [{ type: widgetAdded.type, data: { name: '', size: 2 } }], { expected: 'no-stream' });
    await expect(typed.readStream(id)).rejects.toMatchObject({ field: 'data.name' });
  });
});

describe('migrations', () => {
  it('are idempotent: a second run applies nothing', async () => {
    expect(await migrate(db.pool, { schema })).toEqual([]);
  });
});
