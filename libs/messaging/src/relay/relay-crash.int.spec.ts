import { EventStore, migrate } from '@headspace/event-store';
import { createTestDatabase, waitFor, type TestDatabase } from '@headspace/testing';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsumer } from '../consumer/event-consumer';
import { eventStreamFor } from '../provisioning/jetstream-provisioning';
import { appendEvents, connectNats, deleteStreams, readAll, uniqueToken } from '../testing/messaging-test-kit';
import { createRelay } from './nats-relay';

const schema = 'crash_svc';
const service = uniqueToken('crash');
const stream = eventStreamFor(service).name;
let db: TestDatabase;
let store: EventStore;
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  db = await createTestDatabase('msgcrash');
  await migrate(db.pool, { schema });
  await db.pool.query(`CREATE TABLE ${schema}.counted (event_id uuid PRIMARY KEY, applied int NOT NULL DEFAULT 1)`);
  store = new EventStore({ pool: db.pool, schema });
  nc = await connectNats();
  jsm = await jetstreamManager(nc);
});
afterAll(async () => {
  await deleteStreams(jsm, [stream]);
  await nc?.close();
  await db?.drop();
});

describe('relay crash', () => {
  it('relay killed between publish and checkpoint: a fresh relay skips what the stream holds, JetStream keeps every event once, the consumer applies each once', async () => {
    const ids = await appendEvents(store, { category: 'tick', count: 30, perStream: 3 });
    let firstBatch: string[] | undefined;
    const crashing = await createRelay({
      pool: db.pool,
      schema,
      nc,
      service,
      batchSize: 10,
      leaseMs: 1_000,
      pollIntervalMs: 5,
      instanceId: 'relay-crashing',
      onError: () => undefined, // the simulated crash, every retry
      afterPublish: async (events) => {
        firstBatch ??= events.map((e) => e.eventId);
        throw new Error('simulated crash after the PubAcks, before the checkpoint');
      },
    });
    await waitFor(() => firstBatch, { message: 'first batch published' });
    await crashing.kill();

    // The fence is cluster-wide: a transaction another spec file holds open can keep some of the 30
    // behind it, so the first batch is the log's first 1 to 10 events, and retries may publish more.
    expect(firstBatch!.length).toBeGreaterThan(0);
    expect(firstBatch).toEqual(ids.slice(0, firstBatch!.length));
    const { rows: cp } = await db.pool.query(`SELECT global_position FROM ${schema}.checkpoints WHERE processor = 'relay:nats'`);
    expect(cp[0].global_position).toBe('0');
    const published = (await readAll(nc, stream)).map((m) => m.header.get('Nats-Msg-Id'));
    expect(published.length).toBeGreaterThanOrEqual(firstBatch!.length);
    expect(published.length).toBeLessThanOrEqual(10);
    expect(published).toEqual(ids.slice(0, published.length));

    const consumer = await createConsumer({
      js: jetstream(nc),
      pool: db.pool,
      schema,
      stream,
      durable: 'counter',
      filterSubjects: eventStreamFor(service).subjects,
      backoffMs: [20],
      handle: async (event, tx) => {
        await tx.query(
          `INSERT INTO ${schema}.counted (event_id) VALUES ($1) ON CONFLICT (event_id) DO UPDATE SET applied = counted.applied + 1`,
          [event.eventId],
        );
      },
    });
    const fresh = await createRelay({ pool: db.pool, schema, nc, service, batchSize: 10, leaseMs: 1_000, pollIntervalMs: 5, instanceId: 'relay-fresh' });
    try {
      await fresh.waitUntilCaughtUp();
      expect(fresh.stats.alreadyStored).toBe(published.length);
      expect(fresh.stats.published + fresh.stats.alreadyStored).toBe(30);
      expect((await readAll(nc, stream)).map((m) => m.header.get('Nats-Msg-Id'))).toEqual(ids);

      await waitFor(async () => (await db.pool.query(`SELECT count(*)::int AS n FROM ${schema}.counted`)).rows[0].n === 30, {
        message: 'consumer applied all 30',
      });
      const { rows } = await db.pool.query(`SELECT event_id, applied FROM ${schema}.counted ORDER BY event_id`);
      expect(rows.map((r) => r.event_id).sort()).toEqual([...ids].sort());
      expect(rows.every((r) => r.applied === 1)).toBe(true);
      expect(consumer.stats).toMatchObject({ handled: 30, duplicates: 0, deadLettered: 0 });
    } finally {
      await fresh.stop();
      await consumer.stop();
    }
  });
});
