import { randomUUID } from 'node:crypto';
import { eventSubject } from '@headspace/contracts';
import { migrate, PgClient } from '@headspace/event-store';
import { createTestDatabase, startPgServer, waitFor, type PgServerHandle, type TestDatabase } from '@headspace/testing';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEnvelope } from '../envelope/event-envelope';
import { HsHeaders, natsHeaders } from '../headers/hs-headers';
import { ensureStream, eventStreamFor } from '../provisioning/jetstream-provisioning';
import { connectNats, deleteStreams, uniqueToken } from '../testing/messaging-test-kit';
import { createConsumer } from './event-consumer';

const schema = 'outage_svc';
const service = uniqueToken('dbout');
const stream = eventStreamFor(service).name;
let pg: PgServerHandle;
let db: TestDatabase;
let pool: Pool;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;

beforeAll(async () => {
  pg = await startPgServer();
  db = await createTestDatabase('consout', { adminUrl: pg.url });
  await migrate(db.pool, { schema });
  await db.pool.query(`CREATE TABLE ${schema}.effects (event_id uuid PRIMARY KEY, applied int NOT NULL DEFAULT 1)`);
  // As the services' pools: the Headspace client, which survives losing its connection.
  pool = db.newPool({ Client: PgClient, connectionTimeoutMillis: 2_000 });
  nc = await connectNats();
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
  await ensureStream(jsm, eventStreamFor(service));
});
afterAll(async () => {
  await deleteStreams(jsm, [stream]);
  await nc?.close();
  await db?.drop();
  await pg?.dispose();
});

async function publish(n: number): Promise<string> {
  const eventId = randomUUID();
  const h = natsHeaders();
  h.set(HsHeaders.eventId, eventId);
  const envelope = {
    eventId,
    type: 'beat.happened',
    streamId: 'beat-1',
    streamVersion: String(n + 1),
    globalPosition: String(n + 1),
    schemaVersion: 1,
    data: { n },
    metadata: {},
    recordedAt: new Date().toISOString(),
  };
  await js.publish(eventSubject(service, envelope.type), encodeEnvelope(envelope), { msgID: eventId, headers: h });
  return eventId;
}

describe('a consumer across a PostgreSQL restart', () => {
  it('holds what arrives while the database is down and applies every event exactly once after it is back, dead-lettering none', async () => {
    const errors: unknown[] = [];
    const consumer = await createConsumer({
      js,
      pool,
      schema,
      stream,
      durable: 'effects',
      filterSubjects: eventStreamFor(service).subjects,
      // Two failed deliveries would dead-letter a message: the outage must not count as failures.
      maxDeliver: 2,
      backoffMs: [20],
      handle: async (event, tx) => {
        await tx.query(`INSERT INTO ${schema}.effects (event_id) VALUES ($1) ON CONFLICT (event_id) DO UPDATE SET applied = effects.applied + 1`, [
          event.eventId,
        ]);
      },
      onError: (error) => errors.push(error),
    });
    const ids: string[] = [];
    const count = async () => (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.effects`)).rows[0].n;
    try {
      for (let n = 0; n < 10; n++) ids.push(await publish(n));
      await waitFor(async () => (await count()) === 10, { message: 'events applied before the outage' });

      await pg.stop('immediate');
      for (let n = 10; n < 30; n++) ids.push(await publish(n));
      await waitFor(() => errors.length > 0, { message: 'the consumer met the outage' });
      await pg.start();

      await waitFor(async () => (await count()) === 30, { timeoutMs: 30_000, message: 'every event applied after the restart' });
    } finally {
      await consumer.stop();
    }
    const { rows } = await pool.query<{ event_id: string; applied: number }>(`SELECT event_id, applied FROM ${schema}.effects`);
    expect(rows.map((r) => r.event_id).sort()).toEqual([...ids].sort());
    expect(rows.filter((r) => r.applied !== 1)).toEqual([]);
    expect((await pool.query(`SELECT * FROM ${schema}.dead_letters`)).rows).toEqual([]);
    expect(consumer.stats.deadLettered).toBe(0);
    expect(errors.every((e) => (e as { code?: string }).code === 'DATABASE.UNAVAILABLE')).toBe(true);
  });
});
