import { EventStore, migrate } from '@headspace/event-store';
import { createTestDatabase, waitFor, type TestDatabase } from '@headspace/testing';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventStreamFor } from '../provisioning/jetstream-provisioning';
import { appendEvents, connectNats, deleteStreams, readAll, uniqueToken } from '../testing/messaging-test-kit';
import { createRelay, RELAY_PROCESSOR_NAME } from './nats-relay';

/** A short duplicate window, so that "restarted after the window" needs no two-minute wait. */
const WINDOW_MS = 1_000;
let db: TestDatabase;
let nc: NatsConnection;
let jsm: JetStreamManager;
const streams: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase('msglate');
  nc = await connectNats();
  jsm = await jetstreamManager(nc);
});
afterAll(async () => {
  await deleteStreams(jsm, streams);
  await nc?.close();
  await db?.drop();
});

/**
 * A relay that publishes batches of 10, the stored checkpoint trailing (checkpointEveryMs), and
 * crashes after the PubAcks of its third batch, before any checkpoint covers it; then JetStream's
 * duplicate window passes.
 */
async function crashAfterPublishing(schema: string) {
  await migrate(db.pool, { schema });
  const store = new EventStore({ pool: db.pool, schema });
  const service = uniqueToken('late');
  const stream = eventStreamFor(service).name;
  streams.push(stream);
  const ids = await appendEvents(store, { category: 'tick', count: 40, perStream: 4 });
  let batches = 0;
  const crashing = await createRelay({
    pool: db.pool,
    schema,
    nc,
    service,
    provision: { duplicateWindowMs: WINDOW_MS },
    batchSize: 10,
    leaseMs: 1_000,
    pollIntervalMs: 5,
    instanceId: 'relay-crashing',
    onError: () => undefined, // the simulated crash
    afterPublish: async () => {
      if (++batches >= 3) throw new Error('simulated crash after the PubAcks, before the checkpoint');
    },
  });
  await waitFor(() => batches >= 3, { message: 'three batches published' });
  await crashing.kill();
  const before = await readAll(nc, stream);
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${schema}.events e JOIN ${schema}.checkpoints c ON c.processor = $1
      WHERE (e.transaction_id, e.global_position) <= (c.transaction_id, c.global_position)`,
    [RELAY_PROCESSOR_NAME],
  );
  const checkpointed = rows[0].n;
  // The scenario is real: the stream holds events the stored checkpoint does not cover.
  expect(before.length).toBeGreaterThan(checkpointed);
  expect(before.map((m) => m.header.get('Nats-Msg-Id'))).toEqual(ids.slice(0, before.length));
  const newest = before[before.length - 1].time.getTime();
  await waitFor(() => Date.now() - newest > 2 * WINDOW_MS, { message: 'the duplicate window passed', intervalMs: 50 });
  return { schema, service, stream, ids, before, checkpointed };
}

const restart = (schema: string, service: string) =>
  createRelay({ pool: db.pool, schema, nc, service, provision: { duplicateWindowMs: WINDOW_MS }, batchSize: 10, leaseMs: 1_000, pollIntervalMs: 5, instanceId: 'relay-restarted' });

describe('relay restarted after the duplicate window', () => {
  it('publishes no event a second time: what the crashed relay stored past its checkpoint is found in the stream and skipped', async () => {
    const { schema, service, stream, ids, before, checkpointed } = await crashAfterPublishing('late_a');
    // Another publisher's message without any Hs-* header or msg id lands at the stream's tail.
    await jetstream(nc).publish(`${eventStreamFor(service).subjects[0].slice(0, -1)}foreign`, new TextEncoder().encode('not an event'));
    const relay = await restart(schema, service);
    try {
      await relay.waitUntilCaughtUp();
      const after = await readAll(nc, stream);
      expect(after).toHaveLength(ids.length + 1);
      const eventIds = after.filter((m) => m.header?.has('Nats-Msg-Id')).map((m) => m.header.get('Nats-Msg-Id'));
      expect(eventIds).toEqual(ids);
      expect(new Set(eventIds).size).toBe(ids.length);
      expect(relay.stats).toMatchObject({ alreadyStored: before.length - checkpointed, published: ids.length - before.length, duplicates: 0 });
    } finally {
      await relay.stop();
    }
  });

  it('publishes again an event the stream lost between others it holds, and only that one', async () => {
    const { schema, service, stream, ids, before, checkpointed } = await crashAfterPublishing('late_b');
    const lost = before[checkpointed]; // the first event past the checkpoint
    await jsm.streams.deleteMessage(stream, lost.seq);
    const relay = await restart(schema, service);
    try {
      await relay.waitUntilCaughtUp();
      const eventIds = (await readAll(nc, stream)).map((m) => m.header.get('Nats-Msg-Id'));
      expect([...eventIds].sort()).toEqual([...ids].sort());
      expect(eventIds).toHaveLength(ids.length);
      expect(relay.stats).toMatchObject({ alreadyStored: before.length - checkpointed - 1, published: ids.length - before.length + 1, duplicates: 0 });
    } finally {
      await relay.stop();
    }
  });
});
