import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, waitFor, type TestDatabase } from '@headspace/testing';
import { LISTENER_NAME } from './append-listener-hub';
import { appendChannel, AppendWakeups } from './append-wakeups';
import { EventStore } from './event-store';
import { migrate } from './migrate';
import { ProcessorRunner } from './processor/processor-runner';

const schema = 'wakeups';
let db: TestDatabase;
let store: EventStore;
const stops: Array<() => Promise<void>> = [];

beforeAll(async () => {
  db = await createTestDatabase('append-wakeups');
  await migrate(db.pool, { schema });
  store = new EventStore({ pool: db.pool, schema });
});
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});
afterAll(() => db?.drop());

async function wakeups(instanceId?: string): Promise<AppendWakeups> {
  const w = new AppendWakeups({ pool: db.pool, schema, reconnectMs: 50, ...(instanceId ? { instanceId } : {}) });
  await w.start();
  stops.push(() => w.stop());
  return w;
}

/** A processor that polls once a minute when idle: anything it handles sooner, something woke it for. */
async function slowPoller() {
  const stream = `s-${randomUUID()}`;
  const handled: number[] = [];
  const r = new ProcessorRunner({
    pool: db.pool,
    schema,
    name: `slow-${randomUUID()}`,
    pollIntervalMs: 60_000,
    maxIdlePollMs: 60_000,
    onError: () => undefined,
    handle: async (events) => {
      for (const e of events) if (e.streamId === stream) handled.push((e.data as { n: number }).n);
    },
  });
  r.start();
  stops.push(() => r.stop());
  await r.waitUntilCaughtUp();
  return { stream, handled };
}

/** An append as another process makes it: committed in a transaction of its own, so no in-process signal goes out. */
async function appendElsewhere(stream: string, n: number): Promise<void> {
  const tx = await db.pool.connect();
  try {
    await tx.query('BEGIN');
    await store.append(stream, [{ type: 'thing.happened', data: { n } }], { expected: 'any', client: tx });
    await tx.query('COMMIT');
  } finally {
    tx.release();
  }
}

/** The channel as a plain LISTEN connection hears it: every payload, in order. */
async function rawListener(): Promise<string[]> {
  const received: string[] = [];
  const listener = await db.pool.connect();
  stops.push(async () => {
    await listener.query(`UNLISTEN ${appendChannel(schema)}`);
    listener.release();
  });
  listener.on('notification', (m) => received.push(m.payload ?? ''));
  await listener.query(`LISTEN ${appendChannel(schema)}`);
  return received;
}

const notifyAsReplica = (types: string[]) => db.pool.query('SELECT pg_notify($1, $2)', [appendChannel(schema), JSON.stringify({ i: 'other-replica', t: types })]);

describe('append wake-ups across processes (LISTEN/NOTIFY)', () => {
  it('wakes a caught-up processor for another replica’s append long before its next idle poll', async () => {
    const here = await wakeups();
    const { stream, handled } = await slowPoller();
    await appendElsewhere(stream, 1);
    await notifyAsReplica(['thing.happened']);
    await waitFor(() => (handled.includes(1) ? true : undefined), { timeoutMs: 15_000, message: 'the remote append handled (the idle poll is a minute away)' });
    expect(here.received).toBe(1);
  });

  it('announces this process’s committed appends to the other replicas, with their types', async () => {
    await wakeups();
    const received = await rawListener();
    await store.append(`a-${randomUUID()}`, [{ type: 'order.placed', data: {} }, { type: 'order.paid', data: {} }], { expected: 'no-stream' });
    const payload = await waitFor(() => received.find((p) => p.includes('order.placed')), { timeoutMs: 10_000, message: 'the announcement' });
    expect(JSON.parse(payload)).toEqual({ i: expect.any(String), t: ['order.placed', 'order.paid'] });
  });

  it('skips its own announcements: its processors were woken in-process', async () => {
    const here = await wakeups('replica-a');
    const heard = await rawListener();
    await store.append(`own-${randomUUID()}`, [{ type: 'own.thing', data: {} }], { expected: 'no-stream' });
    await waitFor(() => heard.find((p) => p.includes('own.thing')), { timeoutMs: 10_000, message: 'the announcement on the channel' });
    // a listener gets notifications in commit order: once the marker is in, its own announcement was seen (and skipped)
    await db.pool.query('SELECT pg_notify($1, $2)', [appendChannel(schema), JSON.stringify({ i: 'replica-b', t: ['marker'] })]);
    await waitFor(() => (here.received >= 1 ? true : undefined), { timeoutMs: 10_000, message: 'the marker' });
    expect(here.received).toBe(1);
  });

  it('shares one LISTEN connection among the services of a process, and closes it when the last one stops', async () => {
    const listeners = async () => (await db.pool.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`, [LISTENER_NAME])).rowCount;
    const a = new AppendWakeups({ pool: db.pool, schema: 'service_a' });
    const b = new AppendWakeups({ pool: db.pool, schema: 'service_b' });
    await a.start();
    await b.start();
    expect(await listeners()).toBe(1);
    await a.stop();
    expect(b.listening).toBe(true);
    await b.stop();
    await waitFor(async () => ((await listeners()) === 0 ? true : undefined), { timeoutMs: 10_000, message: 'the connection closed' });
  });

  it('listens again after PostgreSQL drops its connection, and the next remote append still wakes the processor', async () => {
    const here = await wakeups();
    const { stream, handled } = await slowPoller();
    const terminated = await db.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`, [LISTENER_NAME]);
    expect(terminated.rowCount).toBeGreaterThan(0);
    await waitFor(async () => {
      const { rows } = await db.pool.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`, [LISTENER_NAME]);
      return rows.length > 0 && here.listening ? true : undefined;
    }, { timeoutMs: 10_000, message: 'the listener back' });
    await appendElsewhere(stream, 2);
    await notifyAsReplica(['thing.happened']);
    await waitFor(() => (handled.includes(2) ? true : undefined), { timeoutMs: 15_000, message: 'the remote append handled after the reconnect' });
  });
});
