import { randomBytes } from 'node:crypto';
import { EventStore, migrate, type RecordedEvent } from '@headspace/event-store';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { createInbox, type NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';
import { createRelay, encodeEnvelope, ensureStream, eventStreamFor, relayHeaders, toEnvelope } from '@headspace/messaging';
import type { BenchRow } from './bench-kit';

/**
 * Relay throughput against raw pipelined JetStream publishes of the same messages with msgID
 * (windows of `batchSize`, every PubAck awaited), on the caller's database and NATS, two ways:
 * `js.publish` (a request per message: the target's baseline), and bare asynchronous publishes
 * (core publishes answered on one inbox subscription, the way the relay's PipelinedPublisher
 * publishes), which leaves what the relay adds to publishing. The schema and streams it creates
 * are dropped afterwards.
 */
export async function benchRelay(opts: { pool: Pool; nc: NatsConnection; events?: number; batchSize?: number }): Promise<BenchRow[]> {
  const count = opts.events ?? 20_000;
  const batchSize = opts.batchSize ?? 500;
  const token = randomBytes(4).toString('hex');
  const schema = `bench_relay_${token}`;
  const service = `bench-${token}`;
  const jsm = await jetstreamManager(opts.nc);
  const js = jetstream(opts.nc);
  const relayStream = eventStreamFor(service);
  const rawStream = { name: `HS_BENCH_RAW_${token}`, subjects: [`hs.bench-raw-${token}.>`] };
  await migrate(opts.pool, { schema });
  try {
    const store = new EventStore({ pool: opts.pool, schema });
    for (let i = 0; i < count; i += 100) {
      const events = Array.from({ length: Math.min(100, count - i) }, (_, k) => ({ type: 'bench.happened', data: { n: i + k, pad: 'x'.repeat(200) } }));
      await store.append(`bench-${i}`, events, { expected: 'no-stream', metadata: { correlationId: 'bench' } });
    }
    const recorded = (await opts.pool.query(`SELECT event_id, stream_id, stream_version, global_position, type, schema_version, data, metadata, recorded_at FROM ${schema}.events ORDER BY global_position`)).rows.map((r) => ({
      eventId: r.event_id as string,
      streamId: r.stream_id as string,
      streamVersion: BigInt(r.stream_version),
      globalPosition: BigInt(r.global_position),
      transactionId: '0',
      category: 'bench',
      type: r.type as string,
      schemaVersion: r.schema_version as number,
      data: r.data,
      metadata: r.metadata,
      recordedAt: r.recorded_at as Date,
    }));

    await ensureStream(jsm, rawStream);
    const rawSubject = (e: RecordedEvent) => `hs.bench-raw-${token}.${e.type}`;
    const rawStarted = performance.now();
    for (let i = 0; i < recorded.length; i += batchSize) {
      await Promise.all(recorded.slice(i, i + batchSize).map((e) => js.publish(rawSubject(e), encodeEnvelope(toEnvelope(e)), { msgID: e.eventId, headers: relayHeaders(e) })));
    }
    const rawRequests = count / ((performance.now() - rawStarted) / 1000);
    await jsm.streams.purge(rawStream.name);
    const raw = await rawAsyncPublishes(opts.nc, recorded, rawSubject, batchSize);

    await ensureStream(jsm, relayStream);
    const relayStarted = performance.now();
    const relay = await createRelay({ pool: opts.pool, schema, nc: opts.nc, service, batchSize, pollIntervalMs: 5, provision: false });
    // Until JetStream holds every event: the checkpoint is stored lazily (every 250 ms), which would
    // add up to that much to a run this short.
    while ((await jsm.streams.info(relayStream.name)).state.messages < count) await new Promise((resolve) => setTimeout(resolve, 2));
    const rate = count / ((performance.now() - relayStarted) / 1000);
    await relay.waitUntilCaughtUp(120_000);
    await relay.stop();
    return [
      { name: `relay → JetStream (batch ${batchSize}) vs js.publish`, value: rate, unit: 'events/s', baseline: rawRequests, target: 0.5, note: `${count} events` },
      {
        name: 'relay vs bare asynchronous publishes',
        value: rate,
        unit: 'events/s',
        baseline: raw,
        note: 'publishing alone, as PipelinedPublisher does it; the relay adds reading and mapping each batch, its spans and headers',
      },
    ];
  } finally {
    await jsm.streams.delete(rawStream.name).catch(() => undefined);
    await jsm.streams.delete(relayStream.name).catch(() => undefined);
    await opts.pool.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
  }
}

/** The baseline: every message a core publish with `Nats-Msg-Id`, its PubAck counted on one inbox subscription. */
async function rawAsyncPublishes(nc: NatsConnection, events: RecordedEvent[], subjectOf: (e: RecordedEvent) => string, window: number): Promise<number> {
  const inbox = createInbox();
  let acked = 0;
  let release: () => void = () => undefined;
  const sub = nc.subscribe(`${inbox}.*`, {
    callback: (_error, msg) => {
      if (msg.json<{ seq?: number }>().seq === undefined) throw new Error(`not a PubAck: ${msg.string()}`);
      acked++;
      release();
    },
  });
  try {
    const started = performance.now();
    for (let i = 0; i < events.length; i += window) {
      const until = Math.min(events.length, i + window);
      const done = new Promise<void>((resolve) => (release = () => acked === until && resolve()));
      for (const e of events.slice(i, until)) {
        const headers = relayHeaders(e);
        headers.set('Nats-Msg-Id', e.eventId);
        nc.publish(subjectOf(e), encodeEnvelope(toEnvelope(e)), { reply: `${inbox}.${i}`, headers });
      }
      await done;
    }
    return events.length / ((performance.now() - started) / 1000);
  } finally {
    sub.unsubscribe();
  }
}
