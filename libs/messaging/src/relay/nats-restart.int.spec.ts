import { EventStore, migrate } from '@headspace/event-store';
import { createTestDatabase, startNatsServer, waitFor, type NatsServerHandle, type TestDatabase } from '@headspace/testing';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsumer } from '../consumer/event-consumer';
import { eventStreamFor } from '../provisioning/jetstream-provisioning';
import { appendEvents, connectNats, readAll, streamMessageCount, uniqueToken } from '../testing/messaging-test-kit';
import { createRelay } from './nats-relay';

const schema = 'restart_svc';
const service = uniqueToken('restart');
const stream = eventStreamFor(service).name;
let db: TestDatabase;
let store: EventStore;
let server: NatsServerHandle;
let nc: NatsConnection;

beforeAll(async () => {
  db = await createTestDatabase('msgrestart');
  await migrate(db.pool, { schema });
  await db.pool.query(`CREATE TABLE ${schema}.counted (event_id uuid PRIMARY KEY, applied int NOT NULL DEFAULT 1)`);
  store = new EventStore({ pool: db.pool, schema });
  server = await startNatsServer();
  nc = await connectNats(server.url);
});
afterAll(async () => {
  await nc?.close();
  await server?.dispose();
  await db?.drop();
});

const countedRows = async () => (await db.pool.query(`SELECT count(*)::int AS n FROM ${schema}.counted`)).rows[0].n as number;

describe('relay and consumer across a NATS restart', () => {
  it('NATS restarted while appends continue: nothing is lost, the relay catches up and every event arrives exactly once', async () => {
    const errors: unknown[] = [];
    const relay = await createRelay({ pool: db.pool, schema, nc, service, pollIntervalMs: 5, publishTimeoutMs: 1_000, onError: (e) => errors.push(e) });
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
    // One writer appends while NATS goes away and comes back; `allow` releases the next 30 events.
    const ids: string[] = [];
    let limit = 30;
    let appending = true;
    let released: () => void = () => undefined;
    const allow = (n: number) => {
      limit += n;
      released();
    };
    const appender = (async () => {
      while (appending) {
        if (ids.length >= limit) await new Promise<void>((resolve) => (released = resolve));
        else ids.push(...(await appendEvents(store, { category: 'beat', count: 3, perStream: 3, from: ids.length })));
      }
    })();
    try {
      await waitFor(async () => (await countedRows()) === 30, { message: 'events flowing before the outage' });

      await server.stop();
      allow(30);
      // The relay keeps trying (and failing) while NATS is away; nothing is checkpointed past the gap.
      await waitFor(() => errors.length > 0 && ids.length === 60, { message: 'relay saw the outage while appends went on' });
      expect(await relay.lag()).toBeGreaterThan(0);

      await server.restart();
      allow(30);
      await waitFor(() => ids.length === 90, { message: 'appends after the restart' });
      appending = false;
      released();
      await appender;

      await waitFor(async () => (await relay.lag()) === 0, { timeoutMs: 30_000, message: 'relay caught up after the restart' });
      await waitFor(async () => (await countedRows()) === 90, { timeoutMs: 30_000, message: 'every event applied' });

      const { rows: log } = await db.pool.query(`SELECT event_id FROM ${schema}.events ORDER BY transaction_id, global_position`);
      expect(log.map((r) => r.event_id)).toEqual(ids);
      expect(await streamMessageCount(nc, stream)).toBe(ids.length);
      expect((await readAll(nc, stream)).map((m) => m.header.get('Nats-Msg-Id'))).toEqual(ids);
      const { rows } = await db.pool.query(`SELECT event_id, applied FROM ${schema}.counted`);
      expect(rows.map((r) => r.event_id).sort()).toEqual([...ids].sort());
      expect(rows.every((r) => r.applied === 1)).toBe(true);
    } finally {
      appending = false;
      released();
      await appender;
      await relay.stop();
      await consumer.stop();
    }
  });
});
