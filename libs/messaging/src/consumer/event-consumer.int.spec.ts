import { randomUUID } from 'node:crypto';
import { eventSubject } from '@headspace/contracts';
import { migrate, quoteIdent } from '@headspace/event-store';
import { currentTraceId, shutdownTelemetry, startTelemetry } from '@headspace/telemetry';
import { createTestDatabase, recordingQueries, waitFor, type SentQuery, type TestDatabase } from '@headspace/testing';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { PoolClient } from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { encodeEnvelope, type EventEnvelope } from '../envelope/event-envelope';
import { HsHeaders, natsHeaders } from '../headers/hs-headers';
import { ensureStream, eventStreamFor } from '../provisioning/jetstream-provisioning';
import { connectNats, deleteStreams, uniqueToken } from '../testing/messaging-test-kit';
import { createConsumer, type ConsumedEvent, type ConsumerOptions, type EventConsumer } from './event-consumer';
import { beginWithInbox } from './inbox';

const schema = 'consumer_svc';
const service = uniqueToken('cons');
const stream = eventStreamFor(service).name;
let db: TestDatabase;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;
const consumers: EventConsumer[] = [];

beforeAll(async () => {
  startTelemetry({ serviceName: 'messaging-consumer-spec', env: {} });
  db = await createTestDatabase('msgconsumer');
  await migrate(db.pool, { schema });
  await db.pool.query(`CREATE TABLE ${schema}.effects (event_id uuid PRIMARY KEY, n int NOT NULL, applied int NOT NULL DEFAULT 1)`);
  nc = await connectNats();
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
  await ensureStream(jsm, eventStreamFor(service));
});
afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.stop()));
});
afterAll(async () => {
  await deleteStreams(jsm, [stream]);
  await nc?.close();
  await db?.drop();
  await shutdownTelemetry();
});

function envelope(category: string, n: number, eventId = randomUUID()): EventEnvelope {
  return {
    eventId,
    type: `${category}.happened`,
    streamId: `${category}-1`,
    streamVersion: String(n + 1),
    globalPosition: String(n + 1),
    schemaVersion: 1,
    data: { n },
    metadata: {},
    recordedAt: new Date().toISOString(),
  };
}

async function publish(e: EventEnvelope, opts: { msgID?: string; traceparent?: string } = {}): Promise<void> {
  const h = natsHeaders();
  h.set(HsHeaders.eventId, e.eventId);
  if (opts.traceparent) h.set('traceparent', opts.traceparent);
  await js.publish(eventSubject(service, e.type), encodeEnvelope(e), { msgID: opts.msgID ?? e.eventId, headers: h });
}

/** The effect: one row per event, `applied` counts how often the effect ran. */
async function applyEffect(event: ConsumedEvent, tx: PoolClient): Promise<void> {
  await tx.query(
    `INSERT INTO ${schema}.effects (event_id, n) VALUES ($1, $2) ON CONFLICT (event_id) DO UPDATE SET applied = effects.applied + 1`,
    [event.eventId, (event.data as { n: number }).n],
  );
}

async function effectOf(eventId: string): Promise<{ n: number; applied: number } | undefined> {
  const { rows } = await db.pool.query(`SELECT n, applied FROM ${schema}.effects WHERE event_id = $1`, [eventId]);
  return rows[0];
}

async function start(category: string, options: Partial<ConsumerOptions> & Pick<ConsumerOptions, 'handle'>): Promise<EventConsumer> {
  const consumer = await createConsumer({
    js,
    pool: db.pool,
    schema,
    stream,
    durable: `${category}-worker`,
    filterSubjects: eventSubject(service, `${category}.>`),
    backoffMs: [20],
    ackWaitMs: 5_000,
    onError: () => undefined, // failures are what these tests provoke
    ...options,
  });
  consumers.push(consumer);
  return consumer;
}

describe('consumer', () => {
  it('messages that arrive together are applied in one transaction each group, in order, each once', async () => {
    const events = Array.from({ length: 40 }, (_, n) => envelope('group', n));
    for (const e of events) await publish(e);
    const seen: Array<{ n: number; tx: string }> = [];
    const consumer = await start('group', {
      handle: async (event, tx) => {
        const { rows } = await tx.query<{ tx: string }>('SELECT txid_current()::text AS tx');
        seen.push({ n: (event.data as { n: number }).n, tx: rows[0].tx });
        await applyEffect(event, tx);
      },
    });
    await waitFor(() => consumer.stats.handled === 40, { message: 'all 40 handled' });
    expect(seen.map((s) => s.n)).toEqual(events.map((_, n) => n));
    expect(new Set(seen.map((s) => s.tx)).size).toBeLessThan(40);
    for (const e of events) expect(await effectOf(e.eventId)).toMatchObject({ applied: 1 });
  });

  it('a poison message inside a group is isolated: the rest of the group is applied once', async () => {
    const events = Array.from({ length: 10 }, (_, n) => envelope('grouppoison', n));
    for (const e of events) await publish(e);
    const consumer = await start('grouppoison', {
      maxDeliver: 2,
      handle: async (event, tx) => {
        if ((event.data as { n: number }).n === 4) throw new Error('poison in a group');
        await applyEffect(event, tx);
      },
    });
    await waitFor(() => consumer.stats.deadLettered === 1 && consumer.stats.handled === 9, { message: '9 handled, 1 dead' });
    for (const e of events.filter((_, n) => n !== 4)) expect(await effectOf(e.eventId)).toMatchObject({ applied: 1 });
    expect(await effectOf(events[4].eventId)).toBeUndefined();
  });

  it('a handler that throws once: the message is redelivered and applied once', async () => {
    const attempts: number[] = [];
    const consumer = await start('once', {
      handle: async (event, tx) => {
        attempts.push(event.deliveryCount);
        if (attempts.length === 1) throw new Error('transient failure');
        await applyEffect(event, tx);
      },
    });
    const e = envelope('once', 1);
    await publish(e);
    expect(await waitFor(() => effectOf(e.eventId), { message: 'effect applied' })).toEqual({ n: 1, applied: 1 });
    expect(attempts).toEqual([1, 2]);
    expect(consumer.stats).toMatchObject({ handled: 1, failures: 1, deadLettered: 0 });
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM ${schema}.inbox WHERE consumer = 'once-worker'`);
    expect(rows[0].n).toBe(1);
  });

  it('a handler that always throws: after maxDeliver the message is in dead_letters with the error, and the next message is still processed', async () => {
    const poison = envelope('poison', 1);
    const good = envelope('poison', 2);
    let poisonAttempts = 0;
    const consumer = await start('poison', {
      maxDeliver: 3,
      handle: async (event, tx) => {
        if (event.eventId === poison.eventId) {
          poisonAttempts++;
          throw Object.assign(new Error('cannot apply this one'), { code: 'TEST.POISON' });
        }
        await applyEffect(event, tx);
      },
    });
    await publish(poison);
    await publish(good);
    const dead = await waitFor(
      async () => (await db.pool.query(`SELECT * FROM ${schema}.dead_letters WHERE consumer = 'poison-worker'`)).rows[0],
      { message: 'dead letter row' },
    );
    expect(dead).toMatchObject({ event_id: poison.eventId, subject: eventSubject(service, 'poison.happened'), deliveries: 3 });
    expect(dead.error).toMatch(/^TEST\.POISON: cannot apply this one\n\s*at /);
    expect(JSON.parse(dead.payload)).toEqual(poison);
    expect(dead.headers).toMatchObject({ [HsHeaders.eventId]: poison.eventId, 'Nats-Msg-Id': poison.eventId });
    expect(Number(dead.stream_seq)).toBeGreaterThan(0);
    expect(await waitFor(() => effectOf(good.eventId), { message: 'next message applied' })).toEqual({ n: 2, applied: 1 });
    expect(poisonAttempts).toBe(3);
    expect(await effectOf(poison.eventId)).toBeUndefined();
    await waitFor(async () => (await jsm.consumers.info(stream, 'poison-worker')).num_ack_pending === 0, { message: 'nothing left unacked' });
    expect(consumer.stats).toMatchObject({ handled: 1, deadLettered: 1, failures: 3 });
  });

  it('the same event published twice (outside the JetStream duplicate window) is applied once, through the inbox', async () => {
    const consumer = await start('twice', { handle: applyEffect });
    const e = envelope('twice', 5);
    await publish(e, { msgID: `${e.eventId}-first` });
    await publish(e, { msgID: `${e.eventId}-again` });
    await waitFor(() => consumer.stats.handled + consumer.stats.duplicates === 2, { message: 'both deliveries seen' });
    expect(await effectOf(e.eventId)).toEqual({ n: 5, applied: 1 });
    expect(consumer.stats).toMatchObject({ handled: 1, duplicates: 1 });
  });

  it('a group of deliveries begins with its inbox rows in one round trip: the event handled before and the second copy of one are not new', async () => {
    const [old, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await db.pool.query(`INSERT INTO ${schema}.inbox (consumer, event_id) VALUES ('grouped', $1)`, [old]);
    const sent: SentQuery[] = [];
    const client = await recordingQueries(db.pool, sent).connect();
    try {
      expect(await beginWithInbox(client, quoteIdent(schema), 'grouped', [old, b, b.toUpperCase(), c])).toEqual([false, true, false, true]);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(sent.map((q) => q.text.slice(0, 5))).toEqual(['BEGIN', 'ROLLB']);
    const { rows } = await db.pool.query(`SELECT event_id FROM ${schema}.inbox WHERE consumer = 'grouped'`);
    expect(rows).toEqual([{ event_id: old }]); // the rows went with the rolled-back transaction
  });

  it('a malformed message is dead-lettered at once without running the handler', async () => {
    let calls = 0;
    await start('malformed', {
      handle: async () => {
        calls++;
      },
    });
    await js.publish(eventSubject(service, 'malformed.happened'), new TextEncoder().encode('{"not":"an envelope"}'));
    const dead = await waitFor(
      async () => (await db.pool.query(`SELECT * FROM ${schema}.dead_letters WHERE consumer = 'malformed-worker'`)).rows[0],
      { message: 'dead letter row' },
    );
    expect(dead).toMatchObject({ deliveries: 1, payload: '{"not":"an envelope"}', event_id: null });
    expect(dead.error).toMatch(/^CONTRACTS\.VALIDATION_FAILED: Invalid event envelope: eventId/);
    expect(calls).toBe(0);
  });

  it('runs the handler in a CONSUMER span whose parent is the trace context of the message headers', async () => {
    const traceId = 'aaf92f3577b34da6a3ce929d0e0e4736';
    let seen: string | undefined;
    await start('traced', {
      handle: async (event, tx) => {
        seen = currentTraceId();
        await applyEffect(event, tx);
      },
    });
    const e = envelope('traced', 3);
    await publish(e, { traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    await waitFor(() => effectOf(e.eventId), { message: 'effect applied' });
    expect(seen).toBe(traceId);
  });

  it('stop() waits for the running handler, then resolves; the message is acknowledged once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    const consumer = await start('drain', {
      handle: async (event, tx) => {
        started = true;
        await gate;
        await applyEffect(event, tx);
      },
    });
    const e = envelope('drain', 9);
    await publish(e);
    await waitFor(() => started, { message: 'handler started' });
    let stopped = false;
    const stopping = consumer.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(await effectOf(e.eventId)).toEqual({ n: 9, applied: 1 });
    await waitFor(async () => (await jsm.consumers.info(stream, 'drain-worker')).num_ack_pending === 0, { message: 'acked' });
  });

  it('with concurrency 3, three handlers run at once (never more) and every message is applied once', async () => {
    let running = 0;
    let peak = 0;
    let threeAtOnce!: () => void;
    const barrier = new Promise<void>((resolve) => (threeAtOnce = resolve));
    const consumer = await start('parallel', {
      concurrency: 3,
      handle: async (event, tx) => {
        peak = Math.max(peak, ++running);
        if (running === 3) threeAtOnce();
        try {
          await barrier; // the first handlers only finish once three have been running together
          await applyEffect(event, tx);
        } finally {
          running--;
        }
      },
    });
    const events = Array.from({ length: 12 }, (_, i) => envelope('parallel', i));
    await Promise.all(events.map((e) => publish(e)));
    await waitFor(() => consumer.stats.handled === 12, { message: 'all 12 applied' });
    expect(peak).toBe(3);
    const { rows } = await db.pool.query(`SELECT applied FROM ${schema}.effects WHERE event_id = ANY ($1::uuid[])`, [events.map((e) => e.eventId)]);
    expect(rows.map((r) => r.applied)).toEqual(Array(12).fill(1));
  });
});
