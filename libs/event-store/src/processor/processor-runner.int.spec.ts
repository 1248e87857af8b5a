import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, recordingQueries, waitFor, type SentQuery, type TestDatabase } from '@headspace/testing';
import { signalAppended } from '../append-signal';
import { EventStore } from '../event-store';
import { migrate } from '../migrate';
import type { RecordedEvent } from '../types';
import { batchSql, idlePeekSql, ProcessorRunner, typedPeekSql, type ProcessorOptions } from './processor-runner';

const schema = 'proc';
let db: TestDatabase;
let store: EventStore;
const runners: ProcessorRunner[] = [];

beforeAll(async () => {
  db = await createTestDatabase('processor');
  await migrate(db.pool, { schema });
  store = new EventStore({ pool: db.pool, schema });
  await db.pool.query(`CREATE TABLE ${schema}.tally (stream_id text PRIMARY KEY, total bigint NOT NULL, handled int NOT NULL)`);
  await db.pool.query(`CREATE TABLE ${schema}.handled (processor text, event_id uuid, instance text, PRIMARY KEY (processor, event_id))`);
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop()));
});
afterAll(() => db?.drop());

function runner(options: Partial<ProcessorOptions> & Pick<ProcessorOptions, 'name' | 'handle'>): ProcessorRunner {
  const r = new ProcessorRunner({ pool: db.pool, schema, pollIntervalMs: 5, onError: () => undefined, ...options });
  runners.push(r);
  return r;
}

/** The global position a processor's stored checkpoint is at. */
async function storedPosition(processor: string): Promise<string> {
  return (await db.pool.query<{ pos: string }>(`SELECT global_position::text AS pos FROM ${schema}.checkpoints WHERE processor = $1`, [processor])).rows[0].pos;
}

/** A runner that collects the `n` of each event of its own stream, in the order handled. */
function collecting(prefix: string, options: Partial<ProcessorOptions>) {
  const stream = `${prefix}-${randomUUID()}`;
  const handled: number[] = [];
  const r = runner({
    name: `${prefix}-${randomUUID()}`,
    ...options,
    handle: async (events) => {
      for (const e of events) if (e.streamId === stream) handled.push((e.data as { n: number }).n);
    },
  });
  return { stream, handled, r };
}

/** The tables an EXPLAIN (FORMAT JSON) plan reads by sequential scan. */
function seqScannedTables(plan: unknown): string[] {
  const found: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (record['Node Type'] === 'Seq Scan') found.push(String(record['Relation Name']));
    Object.values(record).forEach(walk);
  };
  walk(plan);
  return found;
}

/** A schema of its own whose log holds `count` events written in one transaction (no statistics yet). */
async function bulkLoadedLog(name: string, count: number): Promise<string> {
  await migrate(db.pool, { schema: name });
  await db.pool.query(
    `INSERT INTO ${name}.events (event_id, stream_id, stream_version, category, type, data)
     SELECT gen_random_uuid(), 'bulk-' || g, 1, 'bulk', 'bulk.happened', '{}'::jsonb FROM generate_series(1, $1::int) AS g`,
    [count],
  );
  return name;
}

/** The shared buffers read by the plan's scans of the log-order index. */
function logIndexScanBuffers(plan: unknown): number {
  let total = 0;
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (record['Index Name'] === 'events_log_order' && record['Relation Name'] === 'events' && record['Scan Direction'] === 'Forward') {
      total += Number(record['Shared Hit Blocks'] ?? 0) + Number(record['Shared Read Blocks'] ?? 0);
    }
    Object.values(record).forEach(walk);
  };
  walk(plan);
  return total;
}

async function inTransaction<T>(work: (tx: PoolClient) => Promise<T>): Promise<T> {
  const tx = await db.pool.connect();
  try {
    await tx.query('BEGIN');
    const result = await work(tx);
    await tx.query('COMMIT');
    return result;
  } catch (error) {
    await tx.query('ROLLBACK');
    throw error;
  } finally {
    tx.release();
  }
}

/** A tally projection: per stream the sum of `n` and the number of events handled. */
async function tally(events: RecordedEvent[], tx: PoolClient) {
  for (const e of events) {
    await tx.query(
      `INSERT INTO ${schema}.tally (stream_id, total, handled) VALUES ($1, $2, 1)
       ON CONFLICT (stream_id) DO UPDATE SET total = tally.total + excluded.total, handled = tally.handled + 1`,
      [e.streamId, (e.data as { n: number }).n],
    );
  }
}

describe('ProcessorRunner', () => {
  it('out-of-order commits: an uncommitted earlier transaction holds later ones back, then both arrive in commit-safe order', async () => {
    const seen: string[] = [];
    const prefix = `ooo-${randomUUID()}`;
    const r = runner({
      name: `ooo-${randomUUID()}`,
      handle: async (events) => {
        for (const e of events) if (e.streamId.startsWith(prefix)) seen.push(e.streamId);
      },
    });
    r.start();
    await r.waitUntilCaughtUp();

    const t1 = await db.pool.connect();
    try {
      await t1.query('BEGIN');
      await store.append(`${prefix}-t1`, [{ type: 'x.y', data: { n: 1 } }, { type: 'x.y', data: { n: 2 } }], { expected: 'no-stream', client: t1 });
      await store.append(`${prefix}-t2`, [{ type: 'x.y', data: { n: 3 } }], { expected: 'no-stream' });

      // T2 is committed and visible to a plain reader …
      const { rows } = await db.pool.query(`SELECT stream_id FROM ${schema}.events WHERE stream_id LIKE $1`, [`${prefix}%`]);
      expect(rows.map((row) => row.stream_id)).toEqual([`${prefix}-t2`]);
      // … but the processor must not pass it while T1 (earlier position) may still commit.
      const polls = r.pollCount;
      await waitFor(() => r.pollCount >= polls + 3, { message: 'three more polls' });
      expect(seen).toEqual([]);

      await t1.query('COMMIT');
    } finally {
      t1.release();
    }
    await r.waitUntilCaughtUp();
    expect(seen).toEqual([`${prefix}-t1`, `${prefix}-t1`, `${prefix}-t2`]);
  });

  it('a projection rebuilt from position 0 equals the live projection row for row', async () => {
    const name = `tally-${randomUUID()}`;
    const live = runner({ name, handle: tally, batchSize: 7, reset: (tx) => tx.query(`DELETE FROM ${schema}.tally`).then(() => undefined) });
    live.start();
    const streams = Array.from({ length: 12 }, () => `rb-${randomUUID()}`);
    await Promise.all(
      streams.map(async (id, i) => {
        for (let k = 0; k < 5; k++) await store.append(id, [{ type: 'x.y', data: { n: i * 10 + k } }], { expected: 'any' });
      }),
    );
    await live.waitUntilCaughtUp();
    const liveRows = (await db.pool.query(`SELECT * FROM ${schema}.tally ORDER BY stream_id`)).rows;
    expect(liveRows.filter((row) => streams.includes(row.stream_id))).toHaveLength(12);

    await live.rebuild();
    await live.waitUntilCaughtUp();
    const rebuiltRows = (await db.pool.query(`SELECT * FROM ${schema}.tally ORDER BY stream_id`)).rows;
    expect(rebuiltRows).toEqual(liveRows);
  });

  it('a rebuild while the loop is mid-batch or renewing its lease still replays every event from position 0', async () => {
    const name = `rb-race-${randomUUID()}`;
    const stream = `rb-race-${randomUUID()}`;
    await db.pool.query(`CREATE TABLE IF NOT EXISTS ${schema}.rb_race (processor text, event_id uuid, PRIMARY KEY (processor, event_id))`);
    const count = async () => Number((await db.pool.query(`SELECT count(*) FROM ${schema}.rb_race WHERE processor = $1`, [name])).rows[0].count);
    // A short lease and small batches keep the loop in its batch transaction most of the time.
    const r = runner({
      name,
      types: ['race.wanted'],
      batchSize: 5,
      leaseMs: 60,
      handle: async (events, tx) => {
        for (const e of events) if (e.streamId === stream) await tx.query(`INSERT INTO ${schema}.rb_race VALUES ($1, $2)`, [name, e.eventId]);
      },
      reset: (tx) => tx.query(`DELETE FROM ${schema}.rb_race WHERE processor = $1`, [name]).then(() => undefined),
    });
    r.start();
    await store.append(stream, Array.from({ length: 40 }, (_, n) => ({ type: n % 4 === 0 ? 'race.wanted' : 'race.other', data: { n } })), { expected: 'no-stream' });
    await r.waitUntilCaughtUp();
    expect(await count()).toBe(10);
    // Each round, events of its type on another stream keep the loop busy in batch transactions
    // while the rebuild comes in. Bounded per round: every rebuild replays all of them again.
    const noise = async () => {
      for (let k = 0; k < 6; k++) {
        await store.append(`${stream}-noise`, [{ type: 'race.wanted', data: { n: 0 } }], { expected: 'any' });
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    };
    for (let round = 0; round < 30; round++) {
      const appending = noise();
      await new Promise((resolve) => setTimeout(resolve, round % 5));
      await r.rebuild();
      await appending;
      await r.waitUntilCaughtUp();
      expect(await count()).toBe(10);
    }
  });

  it('a handler run outside a transaction holds back no other processor: events appended meanwhile reach them', async () => {
    const stream = `outside-${randomUUID()}`;
    let releaseSlow!: () => void;
    const slowBlocked = new Promise<void>((resolve) => (releaseSlow = resolve));
    const fastSeen: number[] = [];
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    // (In a batch transaction this handler would hold back the fast processor's fence until released.)
    const slow = runner({
      name: `slow-${randomUUID()}`,
      handleOutsideTransaction: true,
      handle: async (events) => {
        if (!events.some((e) => e.streamId === stream && (e.data as { n: number }).n === 1)) return;
        entered();
        await slowBlocked;
      },
    });
    const fast = runner({
      name: `fast-${randomUUID()}`,
      handle: async (events) => {
        for (const e of events) if (e.streamId === stream) fastSeen.push((e.data as { n: number }).n);
      },
    });
    fast.start();
    slow.start();
    await store.append(stream, [{ type: 'x.y', data: { n: 1 } }], { expected: 'no-stream' });
    await inHandler;
    // The slow handler is mid-batch; an event appended now must still reach the other processor.
    await store.append(stream, [{ type: 'x.y', data: { n: 2 } }], { expected: 1n });
    await waitFor(() => (fastSeen.includes(2) ? true : undefined), { timeoutMs: 5_000, message: 'the other processor sees the later event' });
    releaseSlow();
    await slow.waitUntilCaughtUp();
    expect(BigInt(await storedPosition(slow.name))).toBeGreaterThan(0n);
  });

  it('a handler run outside a transaction that loses its lease meanwhile does not move the checkpoint: the batch is left to the new holder', async () => {
    const stream = `outside-lost-${randomUUID()}`;
    let releaseSlow!: () => void;
    const slowBlocked = new Promise<void>((resolve) => (releaseSlow = resolve));
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const r = runner({
      name: `outside-lost-${randomUUID()}`,
      handleOutsideTransaction: true,
      handle: async (events) => {
        if (!events.some((e) => e.streamId === stream)) return;
        entered();
        await slowBlocked;
      },
    });
    r.start();
    await r.waitUntilCaughtUp();
    const before = await storedPosition(r.name);
    await store.append(stream, [{ type: 'x.y', data: { n: 1 } }], { expected: 'no-stream' });
    await inHandler;
    await db.pool.query(`UPDATE ${schema}.checkpoints SET lease_owner = 'another-instance', lease_expires_at = now() + interval '1 hour' WHERE processor = $1`, [r.name]);
    releaseSlow();
    await waitFor(() => (r.isLeaseHolder ? undefined : true), { timeoutMs: 5_000, message: 'the runner notices the lease is gone' });
    const { rows: after } = await db.pool.query<{ pos: string; owner: string }>(`SELECT global_position::text AS pos, lease_owner AS owner FROM ${schema}.checkpoints WHERE processor = $1`, [r.name]);
    expect(after[0]).toEqual({ pos: before, owner: 'another-instance' });
  });

  it('a handler run outside a transaction gets the batch after a full one read while it ran, and handles every event once, in order', async () => {
    const log = await bulkLoadedLog('read_ahead', 25);
    const sent: SentQuery[] = [];
    const handled: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const r = runner({
      name: `ahead-${randomUUID()}`,
      schema: log,
      pool: recordingQueries(db.pool, sent),
      batchSize: 10,
      handleOutsideTransaction: true,
      handle: async (events) => {
        if (handled.length === 0) await gate;
        handled.push(...events.map((e) => e.streamId));
      },
    });
    r.start();
    const batchReads = () => sent.filter((q) => q.name?.startsWith('hs-processor-batch-unlocked')).length;
    await waitFor(() => (batchReads() >= 2 ? true : undefined), { timeoutMs: 5_000, message: 'the next batch is read while the first one is handled' });
    expect(handled).toEqual([]);
    release();
    await waitFor(() => (handled.length >= 25 ? true : undefined), { timeoutMs: 5_000, message: 'every event handled' });
    await r.waitUntilCaughtUp();
    expect(handled).toEqual(Array.from({ length: 25 }, (_, i) => `bulk-${i + 1}`));
  });

  it('a batch read ahead of a handler that failed is not used: the failed batch is handled again, then the rest once each, in order', async () => {
    const log = await bulkLoadedLog('read_ahead_failed', 25);
    const handled: string[] = [];
    let calls = 0;
    const r = runner({
      name: `ahead-failed-${randomUUID()}`,
      schema: log,
      batchSize: 10,
      handleOutsideTransaction: true,
      handle: async (events) => {
        // The second batch fails once, after the first one renewed the lease: the third was read ahead meanwhile.
        if (++calls === 2) throw new Error('boom');
        handled.push(...events.map((e) => e.streamId));
      },
    });
    r.start();
    await waitFor(() => (handled.length >= 25 ? true : undefined), { timeoutMs: 5_000, message: 'every event handled' });
    await r.waitUntilCaughtUp();
    expect(calls).toBe(4);
    expect(handled).toEqual(Array.from({ length: 25 }, (_, i) => `bulk-${i + 1}`));
  });

  it('a handler run outside a transaction moves the stored checkpoint with the lease renewal, not after every batch; a stop stores it, so a restart repeats nothing', async () => {
    const name = `outside-deferred-${randomUUID()}`;
    const stream = `outside-deferred-${randomUUID()}`;
    const handled: number[] = [];
    const make = () =>
      runner({
        name,
        handleOutsideTransaction: true,
        checkpointEveryMs: 60_000,
        leaseMs: 600_000,
        handle: async (events) => {
          for (const e of events) if (e.streamId === stream) handled.push((e.data as { n: number }).n);
        },
      });
    const stored = () => storedPosition(name);
    const first = make();
    first.start();
    await first.waitUntilCaughtUp();
    const before = await stored();
    let last = 0n;
    for (let n = 1; n <= 5; n++) {
      last = (await store.append(stream, [{ type: 'x.y', data: { n } }], { expected: n === 1 ? 'no-stream' : BigInt(n - 1) })).lastPosition;
      await waitFor(() => (handled.length === n ? true : undefined), { timeoutMs: 5_000, message: `event ${n} handled` });
    }
    expect(await stored()).toBe(before);
    await first.stop();
    expect(await stored()).toBe(last.toString());
    const second = make();
    second.start();
    await second.waitUntilCaughtUp();
    expect(handled).toEqual([1, 2, 3, 4, 5]);
  });

  it('a handler run outside a transaction stores its checkpoint soon after it goes idle, long before the lease is due', async () => {
    const { stream, handled, r } = collecting('outside-idle', { handleOutsideTransaction: true, checkpointEveryMs: 200, leaseMs: 600_000 });
    r.start();
    await r.waitUntilCaughtUp();
    const last = (await store.append(stream, [{ type: 'x.y', data: { n: 1 } }], { expected: 'no-stream' })).lastPosition;
    await waitFor(() => (handled.length === 1 ? true : undefined), { timeoutMs: 5_000, message: 'the event handled' });
    const stored = () => storedPosition(r.name);
    // The lease is due after 200 s: only the idle flush explains a stored position within seconds.
    await waitFor(async () => ((await stored()) === last.toString() ? true : undefined), { timeoutMs: 5_000, message: 'the checkpoint stored' });
  });

  it('two instances: only the lease holder processes; when it dies the other takes over after the lease, and no event is handled twice', async () => {
    const name = `lease-${randomUUID()}`;
    const id = `lease-${randomUUID()}`;
    const handleAs = (instance: string) => async (events: RecordedEvent[], tx: PoolClient) => {
      for (const e of events.filter((event) => event.streamId === id)) {
        // The primary key makes a second handling of the same event fail the batch loudly.
        await tx.query(`INSERT INTO ${schema}.handled (processor, event_id, instance) VALUES ($1, $2, $3)`, [name, e.eventId, instance]);
      }
    };
    const a = runner({ name, instanceId: 'a', leaseMs: 1_000, handle: handleAs('a') });
    const b = runner({ name, instanceId: 'b', leaseMs: 1_000, handle: handleAs('b') });
    a.start();
    await waitFor(() => a.isLeaseHolder, { message: 'a holds the lease' });
    b.start();

    for (let k = 0; k < 20; k++) await store.append(id, [{ type: 'x.y', data: { n: k } }], { expected: 'any' });
    await a.waitUntilCaughtUp();
    const count = async (instance: string) =>
      Number((await db.pool.query(`SELECT count(*) FROM ${schema}.handled WHERE processor = $1 AND instance = $2`, [name, instance])).rows[0].count);
    expect(await count('a')).toBe(20);
    expect(await count('b')).toBe(0);
    expect(b.isLeaseHolder).toBe(false);

    await a.kill();
    for (let k = 20; k < 30; k++) await store.append(id, [{ type: 'x.y', data: { n: k } }], { expected: 'any' });
    await waitFor(async () => (await count('b')) === 10, { timeoutMs: 10_000, message: 'b took over' });
    expect(b.isLeaseHolder).toBe(true);
    const total = (await db.pool.query(`SELECT count(*) FROM ${schema}.handled WHERE processor = $1`, [name])).rows[0].count;
    expect(Number(total)).toBe(30);
  });

  it('an append in this process wakes an idle processor at once, whatever its poll interval — a typed one when the append holds its type', async () => {
    const seen: string[] = [];
    const typedSeen: string[] = [];
    const id = `wake-${randomUUID()}`;
    const r = runner({
      name: `wake-${randomUUID()}`,
      pollIntervalMs: 60_000,
      handle: async (events) => {
        for (const e of events) if (e.streamId === id) seen.push(e.eventId);
      },
    });
    const typed = runner({
      name: `wake-typed-${randomUUID()}`,
      pollIntervalMs: 60_000,
      types: ['wake.wanted'],
      handle: async (events) => {
        for (const e of events) if (e.streamId === id) typedSeen.push(e.eventId);
      },
    });
    r.start();
    typed.start();
    await Promise.all([r.waitUntilCaughtUp(), typed.waitUntilCaughtUp()]);
    const { eventIds } = await store.append(id, [{ type: 'wake.other', data: { n: 1 } }, { type: 'wake.wanted', data: { n: 2 } }], { expected: 'no-stream' });
    // Far below the 60 s idle interval: only the append signal can explain the pickup.
    await waitFor(() => seen.length === 2 && typedSeen.length === 1, { timeoutMs: 5_000, message: 'woken by the append' });
    expect(seen).toEqual(eventIds);
    expect(typedSeen).toEqual([eventIds[1]]);
  });

  it("appends in a transaction wake idle processors when it commits: the store's own transaction and a processor's batch alike", async () => {
    const a = collecting('wake-tx', { pollIntervalMs: 60_000, types: ['wake-tx.first'] });
    // Handles what `a` appends from its batch's transaction.
    const b = collecting('wake-tx-chained', { pollIntervalMs: 60_000, types: ['wake-tx.second'] });
    const chained = runner({
      name: `wake-tx-chain-${randomUUID()}`,
      pollIntervalMs: 60_000,
      types: ['wake-tx.first'],
      handle: async (events, client) => {
        for (const e of events) {
          if (e.streamId !== a.stream) continue;
          await store.append(b.stream, [{ type: 'wake-tx.second', data: e.data }], { expected: 'any', commandId: e.eventId, client });
        }
      },
    });
    for (const r of [a.r, b.r, chained]) r.start();
    await Promise.all([a.r, b.r, chained].map((r) => r.waitUntilCaughtUp()));
    await store.transaction(async (client) => {
      await store.append(a.stream, [{ type: 'wake-tx.first', data: { n: 1 } }], { expected: 'no-stream', client });
      await store.append(a.stream, [{ type: 'wake-tx.first', data: { n: 2 } }], { expected: 1n, client });
    });
    // Far below the 60 s idle interval: only the signals released by the commits explain the pickups.
    await waitFor(() => a.handled.length === 2 && b.handled.length === 2, { timeoutMs: 5_000, message: 'woken by the commits' });
    expect(a.handled).toEqual([1, 2]);
    expect(b.handled).toEqual([1, 2]);
  });

  it('a transaction that rolls back appends nothing and leaves the store usable', async () => {
    const stream = `rolled-back-${randomUUID()}`;
    await expect(
      store.transaction(async (client) => {
        await store.append(stream, [{ type: 'x.y', data: { n: 1 } }], { expected: 'no-stream', client });
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await store.readStream(stream)).toEqual([]);
    await store.transaction((client) => store.append(stream, [{ type: 'x.y', data: { n: 2 } }], { expected: 'no-stream', client }));
    expect((await store.readStream(stream)).map((e) => e.data)).toEqual([{ n: 2 }]);
  });

  it('batches holding none of its event types are skipped without writing the checkpoint; a restart skips them again', async () => {
    const name = `typed-${randomUUID()}`;
    const stream = `typed-${randomUUID()}`;
    const handled: string[] = [];
    const make = () =>
      runner({
        name,
        types: ['typed.wanted'],
        leaseMs: 60_000,
        handle: async (events) => {
          for (const e of events) if (e.streamId === stream) handled.push(e.eventId);
        },
      });
    const checkpoint = () => storedPosition(name);
    const first = make();
    first.start();
    const wanted1 = await store.append(stream, [{ type: 'typed.wanted', data: { n: 1 } }], { expected: 'no-stream' });
    await waitFor(() => handled.length === 1, { message: 'the first wanted event' });
    await waitFor(async () => (await checkpoint()) === wanted1.lastPosition.toString(), { message: 'checkpoint at the first wanted event' });
    await store.append(stream, Array.from({ length: 5 }, (_, n) => ({ type: 'typed.other', data: { n } })), { expected: 1n });
    await first.waitUntilCaughtUp();
    expect(await checkpoint()).toBe(wanted1.lastPosition.toString());
    const wanted2 = await store.append(stream, [{ type: 'typed.wanted', data: { n: 2 } }], { expected: 6n });
    await waitFor(() => handled.length === 2, { message: 'the second wanted event' });
    await waitFor(async () => (await checkpoint()) === wanted2.lastPosition.toString(), { message: 'checkpoint at the second wanted event' });
    await first.stop();
    const second = make();
    second.start();
    await second.waitUntilCaughtUp();
    expect(handled).toEqual([...wanted1.eventIds, ...wanted2.eventIds]);
  });

  it('a run of other event types longer than a peek page costs a typed processor no transaction, and its next event is handled after it', async () => {
    const stream = `skip-${randomUUID()}`;
    const handled: number[] = [];
    let transactions = 0;
    // The real pool, counting the connections a batch transaction takes (idle looks use pool.query).
    const pool = new Proxy(db.pool, {
      get(target, key) {
        if (key === 'connect') return (...args: []) => (transactions++, target.connect(...args));
        const value = Reflect.get(target, key) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const r = runner({
      name: `skip-${randomUUID()}`,
      pool,
      types: ['skip.wanted'],
      leaseMs: 60_000,
      handle: async (events) => {
        for (const e of events) if (e.streamId === stream) handled.push((e.data as { n: number }).n);
      },
    });
    r.start();
    await store.append(stream, [{ type: 'skip.wanted', data: { n: 1 } }], { expected: 'no-stream' });
    await waitFor(() => handled.length === 1, { message: 'the first wanted event' });
    await r.waitUntilCaughtUp();
    const before = transactions;
    await store.append(stream, Array.from({ length: 250 }, (_, n) => ({ type: 'skip.other', data: { n } })), { expected: 1n });
    await r.waitUntilCaughtUp();
    expect(transactions).toBe(before);
    const last = await store.append(stream, [{ type: 'skip.wanted', data: { n: 2 } }], { expected: 251n });
    await waitFor(() => handled.length === 2, { message: 'the second wanted event' });
    expect(handled).toEqual([1, 2]);
    // The handler ran inside the batch transaction: its checkpoint commits just after.
    await waitFor(async () => (await storedPosition(r.name)) === last.lastPosition.toString(), { message: 'the checkpoint at the last event' });
    expect(await storedPosition(r.name)).toBe(last.lastPosition.toString());
  });

  it('a handler failure rolls back its batch: the checkpoint does not move and the batch is retried', async () => {
    const name = `flaky-${randomUUID()}`;
    let failures = 1;
    const r = runner({
      name,
      handle: async (events, tx) => {
        await tally(events, tx);
        if (failures-- > 0) throw new Error('boom');
      },
    });
    const id = `flaky-${randomUUID()}`;
    await store.append(id, [{ type: 'x.y', data: { n: 4 } }, { type: 'x.y', data: { n: 6 } }], { expected: 'no-stream' });
    r.start();
    await waitFor(async () => (await db.pool.query(`SELECT handled, total FROM ${schema}.tally WHERE stream_id = $1`, [id])).rows[0]);
    await r.waitUntilCaughtUp();
    const row = (await db.pool.query(`SELECT handled, total FROM ${schema}.tally WHERE stream_id = $1`, [id])).rows[0];
    expect(row).toEqual({ handled: 2, total: '10' });
    expect(await r.lag()).toBe(0);
  });

  it('a processor woken by an append of its types goes straight to its batch, without a peek first', async () => {
    const sent: SentQuery[] = [];
    // The runner's pool and its clients, recording the named statements it sends: peeks and batches.
    const { stream, handled, r } = collecting('no-peek', { pool: recordingQueries(db.pool, sent), pollIntervalMs: 60_000, types: ['no-peek.wanted'] });
    r.start();
    await r.waitUntilCaughtUp();
    sent.length = 0;
    const firstAfterEachAppend: string[] = [];
    for (let n = 1; n <= 5; n++) {
      const mark = sent.length;
      await store.append(stream, [{ type: 'no-peek.wanted', data: { n } }], { expected: n === 1 ? 'no-stream' : BigInt(n - 1) });
      await waitFor(() => (handled.length === n ? true : undefined), { timeoutMs: 5_000, message: `event ${n} handled` });
      firstAfterEachAppend.push(sent.slice(mark).find((q) => q.name)!.name!.replace(/-proc$/, ''));
    }
    expect(handled).toEqual([1, 2, 3, 4, 5]);
    // Whatever follows (a transaction another spec file holds open can keep the append behind the
    // cluster-wide fence for a while, and the looks after that are peeks), the wake itself is a batch.
    expect(firstAfterEachAppend).toEqual(Array(5).fill('hs-processor-batch'));
  });

  it('a handled batch stores its checkpoint and commits in one round trip; a checkpoint that fails rolls the batch back', async () => {
    const name = `one-trip-${randomUUID()}`;
    const stream = `one-trip-${randomUUID()}`;
    const sent: SentQuery[] = [];
    const failures: Error[] = [];
    const r = runner({ name, handle: tally, pool: recordingQueries(db.pool, sent), onError: (error) => failures.push(error as Error) });
    r.start();
    await r.waitUntilCaughtUp();
    // Refuses to move this processor's stored position: its batches fail at the checkpoint.
    await db.pool.query(`CREATE FUNCTION ${schema}.refuse_checkpoint() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'checkpoint refused'; END $$`);
    await db.pool.query(
      `CREATE TRIGGER refuse_checkpoint BEFORE UPDATE ON ${schema}.checkpoints FOR EACH ROW
         WHEN (NEW.processor = '${name}' AND NEW.global_position <> OLD.global_position) EXECUTE FUNCTION ${schema}.refuse_checkpoint()`,
    );
    await store.append(stream, [{ type: 'x.y', data: { n: 7 } }], { expected: 'no-stream' });
    await waitFor(() => (failures.length >= 2 ? true : undefined), { timeoutMs: 10_000, message: 'two refused checkpoints' });
    expect(failures[0].message).toMatch(/checkpoint refused/);
    const tallied = async () => (await db.pool.query(`SELECT handled, total FROM ${schema}.tally WHERE stream_id = $1`, [stream])).rows[0];
    expect(await tallied()).toBeUndefined(); // the tally of each refused batch was rolled back with it
    const checkpoints = sent.filter((q) => /UPDATE \S+\.checkpoints SET transaction_id/.test(q.text));
    expect(checkpoints.length).toBeGreaterThanOrEqual(2);
    for (const q of checkpoints) expect(q.text).toMatch(/;\s*COMMIT$/);
    expect(sent.filter((q) => q.text === 'COMMIT')).toEqual([]);

    await db.pool.query(`DROP TRIGGER refuse_checkpoint ON ${schema}.checkpoints; DROP FUNCTION ${schema}.refuse_checkpoint()`);
    await waitFor(tallied, { timeoutMs: 10_000, message: 'the batch applied once the checkpoint is allowed' });
    await r.waitUntilCaughtUp();
    expect(await tallied()).toEqual({ handled: 1, total: '7' });
  });

  it('a wake that finds nothing due writes nothing while the lease is fresh', async () => {
    const { stream, handled, r } = collecting('quiet-wake', { pollIntervalMs: 60_000, types: ['quiet-wake.wanted'] });
    r.start();
    await store.append(stream, [{ type: 'quiet-wake.wanted', data: { n: 1 } }], { expected: 'no-stream' });
    await waitFor(() => (handled.length === 1 ? true : undefined), { timeoutMs: 5_000, message: 'the first event handled' });
    // handled is seen inside the batch's transaction: its checkpoint write commits a moment later
    await r.waitUntilCaughtUp();
    const stamp = async () => (await db.pool.query<{ at: Date }>(`SELECT updated_at AS at FROM ${schema}.checkpoints WHERE processor = $1`, [r.name])).rows[0].at.getTime();
    const before = await stamp();
    const polls = r.pollCount;
    // Signals for its types with nothing new in the log (the batch that ran already read the append).
    for (let k = 0; k < 5; k++) {
      signalAppended(schema, ['quiet-wake.wanted']);
      await waitFor(() => (r.pollCount > polls + k ? true : undefined), { timeoutMs: 5_000, message: `wake ${k + 1} looked` });
    }
    expect(await stamp()).toBe(before);
    expect(r.isLeaseHolder).toBe(true);
  });

  it('an idle processor backs off to its longest idle interval, and still sees an append made elsewhere within it', async () => {
    const { stream, handled, r } = collecting('idle', { pollIntervalMs: 5, maxIdlePollMs: 200 });
    r.start();
    await r.waitUntilCaughtUp();
    const before = r.pollCount;
    const from = Date.now();
    await waitFor(() => (Date.now() > from + 1_000 ? true : undefined), { message: 'a second to pass' });
    // At a fixed 5 ms that second would hold up to 200 looks; backing off 5, 10, 20 … 200 ms, about ten.
    expect(r.pollCount - before).toBeLessThan(25);
    // An append by another process (a transaction of its own wakes no processor here) is found by the polls.
    await inTransaction((tx) => store.append(stream, [{ type: 'x.y', data: { n: 1 } }], { expected: 'no-stream', client: tx }));
    await waitFor(() => (handled.includes(1) ? true : undefined), { timeoutMs: 5_000, message: 'the append is handled' });
  });

  it('"caught up" is not reported by an instance whose batch found its lease taken: it read nothing', async () => {
    const stream = `taken-${randomUUID()}`;
    const r = runner({ name: `taken-${randomUUID()}`, handle: async () => undefined });
    r.start();
    await r.waitUntilCaughtUp();
    await db.pool.query(`UPDATE ${schema}.checkpoints SET lease_owner = 'another-instance', lease_expires_at = now() + interval '1 hour' WHERE processor = $1`, [r.name]);
    await store.append(stream, [{ type: 'x.y', data: { n: 1 } }], { expected: 'no-stream' }); // wakes it: its look finds the event due, its batch finds the lease gone
    await expect(r.waitUntilCaughtUp(1_500)).rejects.toThrow(/did not catch up/);
    expect(r.isLeaseHolder).toBe(false);
  });

  it('a stop that comes mid-batch ends the loop when the batch is done, without waiting out the idle interval', async () => {
    const stream = `stop-${randomUUID()}`;
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const r = runner({
      name: `stop-${randomUUID()}`,
      pollIntervalMs: 600_000,
      handle: async (events) => {
        if (!events.some((e) => e.streamId === stream)) return;
        entered();
        await blocked;
      },
    });
    r.start();
    await store.append(stream, [{ type: 'x.y', data: { n: 1 } }], { expected: 'no-stream' });
    await inHandler;
    let stopped = false;
    const stopping = r.stop().then(() => (stopped = true));
    release();
    await waitFor(() => stopped || undefined, { timeoutMs: 5_000, message: 'the runner to stop' });
    await stopping;
  });

  it('events a batch left behind the fence are looked for again soon, not after the idle interval, once the transaction holding them back ends', async () => {
    // A poll interval far beyond the test's timeout: only the eager looks can find the held-back events.
    const { stream, handled, r } = collecting('fenced', { pollIntervalMs: 600_000 });
    r.start();
    await r.waitUntilCaughtUp();
    // Appends through a caller's own transaction wake no processor, so the order of events is ours to set.
    const appendQuietly = (n: number, expected: bigint | 'no-stream') =>
      inTransaction((tx) => store.append(stream, [{ type: 'x.y', data: { n } }], { expected, client: tx }));
    await appendQuietly(1, 'no-stream');
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_current_xact_id()'); // holds the fence below the next append
      await appendQuietly(2, 1n);
      await store.append(`${stream}-wake`, [{ type: 'x.y', data: { n: 0 } }], { expected: 'no-stream' }); // the signal that wakes it
      await waitFor(() => (handled.includes(1) ? true : undefined), { message: 'the event below the fence is handled' });
      expect(handled).toEqual([1]);
      await holder.query('COMMIT');
    } finally {
      holder.release();
    }
    await waitFor(() => (handled.includes(2) ? true : undefined), { timeoutMs: 5_000, message: 'the held-back event is handled once the fence moves' });
    expect(handled).toEqual([1, 2]);
  });

  it('a typed processor that skips a page below the fence looks again soon for its events held back behind it', async () => {
    // The wanted event's signal is spent on a batch of others' events; the peek after it skips the rest
    // of them and must not then sleep out the idle interval while the wanted one waits behind the fence.
    const { stream, handled, r } = collecting('typed-fenced', { pollIntervalMs: 600_000, batchSize: 2, types: ['typed-fenced.wanted'] });
    r.start();
    await r.waitUntilCaughtUp();
    const others = `${stream}-others`;
    for (let n = 1; n <= 3; n++) await store.append(others, [{ type: 'typed-fenced.other', data: { n } }], { expected: n === 1 ? 'no-stream' : BigInt(n - 1) });
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_current_xact_id()'); // holds the fence below the wanted append
      const polls = r.pollCount;
      await store.append(stream, [{ type: 'typed-fenced.wanted', data: { n: 1 } }], { expected: 'no-stream' });
      // Its batch of two others, then a peek that skips the third.
      await waitFor(() => (r.pollCount >= polls + 2 ? true : undefined), { timeoutMs: 5_000, message: 'the batch and the peek after it' });
      expect(handled).toEqual([]);
      await holder.query('COMMIT');
    } finally {
      holder.release();
    }
    await waitFor(() => (handled.includes(1) ? true : undefined), { timeoutMs: 5_000, message: 'the held-back event is handled once the fence moves' });
  });

  it('the idle polls, plain and typed, read the log-order index however long the log is, even as generic prepared plans', async () => {
    await db.pool.query(
      `INSERT INTO ${schema}.events (event_id, stream_id, stream_version, category, type, data)
       SELECT gen_random_uuid(), 'bulk-' || g, 1, 'bulk', 'bulk.happened', '{}'::jsonb FROM generate_series(1, 50000) AS g`,
    );
    await db.pool.query(`ANALYZE ${schema}.events`);
    const client = await db.pool.connect();
    try {
      await client.query(`SET plan_cache_mode = force_generic_plan`);
      await client.query(`PREPARE idle_peek (xid8, bigint) AS ${idlePeekSql(schema)}`);
      const { rows: head } = await client.query<{ tx: string; pos: string }>(
        `SELECT transaction_id::text AS tx, global_position::text AS pos FROM ${schema}.events ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
      );
      const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON, ANALYZE) EXECUTE idle_peek('${head[0].tx}', ${head[0].pos})`);
      const plan = JSON.stringify(rows[0]['QUERY PLAN']);
      expect(plan).not.toContain('Seq Scan');
      expect(plan).toContain('events_log_order');
      // At the head of the log nothing is due and nothing waits behind the fence.
      const { rows: peek } = await client.query(`EXECUTE idle_peek('${head[0].tx}', ${head[0].pos})`);
      expect(peek[0]).toMatchObject({ pending: null, fenced: null });
      await client.query('DEALLOCATE idle_peek');
      await client.query(`PREPARE typed_peek (xid8, bigint, text[], int) AS ${typedPeekSql(schema)}`);
      const typed = `EXECUTE typed_peek('${head[0].tx}', ${head[0].pos}, ARRAY['bulk.other'], 100)`;
      const { rows: typedPlan } = await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON, ANALYZE) ${typed}`);
      expect(JSON.stringify(typedPlan[0]['QUERY PLAN'])).not.toContain('Seq Scan');
      expect(JSON.stringify(typedPlan[0]['QUERY PLAN'])).toContain('events_log_order');
      const { rows: typedPeek } = await client.query(typed);
      expect(typedPeek[0]).toMatchObject({ pending: null, fenced: false, seen: 0, wanted: null });
      await client.query('DEALLOCATE typed_peek');
    } finally {
      client.release();
    }
  });
  it('a batch starts reading where the instance has read, not at a stored checkpoint far behind it', async () => {
    // A typed processor moves past other processors' events in memory and stores the position later:
    // its next batch must not step through all of them again.
    const skip = await bulkLoadedLog('proc_skip', 50_000);
    await db.pool.query(`INSERT INTO ${skip}.checkpoints (processor, lease_owner, lease_expires_at) VALUES ('skip-probe', 'me', now() + interval '1 hour')`);
    const { rows: read } = await db.pool.query<{ tx: string; pos: string }>(
      `SELECT transaction_id::text AS tx, global_position::text AS pos FROM ${skip}.events ORDER BY transaction_id, global_position OFFSET 49989 LIMIT 1`,
    );
    const client = await db.pool.connect();
    try {
      await client.query(`SET plan_cache_mode = force_generic_plan`);
      await client.query(`PREPARE skip_batch (text, text, int, xid8, bigint) AS ${batchSql(skip, false)}`);
      const batch = `EXECUTE skip_batch('skip-probe', 'me', 100, '${read[0].tx}', ${read[0].pos})`;
      const { rows } = await client.query<{ global_position: string }>(batch);
      expect(rows.map((r) => r.global_position)).toEqual(Array.from({ length: 10 }, (_, i) => String(Number(read[0].pos) + 1 + i)));
      const { rows: plan } = await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON, ANALYZE, BUFFERS) ${batch}`);
      // Stepping from position 0 through 50,000 index entries reads over a hundred index pages.
      expect(logIndexScanBuffers(plan[0]['QUERY PLAN'])).toBeLessThan(20);
      await client.query('DEALLOCATE skip_batch');
    } finally {
      client.release();
    }
  });

  it('the batch statement finds nothing due and nothing behind the fence by index probes, also on a freshly loaded log with no statistics yet', async () => {
    // A replay right after a bulk load: the planner has no statistics, and a generic plan that reads
    // the log to prove an absence costs every batch a scan of the whole log.
    const fresh = await bulkLoadedLog('proc_fresh', 200_000);
    const client = await db.pool.connect();
    try {
      const { rows: head } = await client.query<{ tx: string; pos: string }>(
        `SELECT transaction_id::text AS tx, global_position::text AS pos FROM ${fresh}.events ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
      );
      await client.query(
        `INSERT INTO ${fresh}.checkpoints (processor, transaction_id, global_position, lease_owner, lease_expires_at) VALUES ('plan-probe', $1::xid8, $2, 'me', now() + interval '1 hour')`,
        [head[0].tx, head[0].pos],
      );
      await client.query(`SET plan_cache_mode = force_generic_plan`);
      await client.query(`PREPARE batch (text, text, int, xid8, bigint) AS ${batchSql(fresh, false)}`);
      const batch = `EXECUTE batch('plan-probe', 'me', 500, '${head[0].tx}', ${head[0].pos})`;
      const { rows: plan } = await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON, ANALYZE) ${batch}`);
      expect(seqScannedTables(plan[0]['QUERY PLAN'])).not.toContain('events');
      const { rows } = await client.query(batch);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ fenced: false, event_id: null });
      await client.query('DEALLOCATE batch');
    } finally {
      client.release();
    }
  });
});
