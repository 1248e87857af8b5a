import { randomUUID } from 'node:crypto';
import { eventSubject } from '@headspace/contracts';
import { migrate } from '@headspace/event-store';
import { shutdownTelemetry, startTelemetry } from '@headspace/telemetry';
import { createTestDatabase, metricValue, scrapeMetrics, waitFor, type TestDatabase } from '@headspace/testing';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEnvelope } from '../envelope/event-envelope';
import { HsHeaders, natsHeaders } from '../headers/hs-headers';
import { ensureDurableConsumer, ensureStream, eventStreamFor } from '../provisioning/jetstream-provisioning';
import { connectNats, deleteStreams, uniqueToken } from '../testing/messaging-test-kit';
import { createConsumer } from './event-consumer';
import { CONSUMER_INFO_MAX_AGE_MS, watchConsumerPending } from './jetstream-consumer-metrics';

const schema = 'pending_svc';
const service = uniqueToken('pend');
const stream = eventStreamFor(service).name;
let db: TestDatabase;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;

beforeAll(async () => {
  startTelemetry({ serviceName: 'consumer-pending-spec', env: {} });
  db = await createTestDatabase('msgpending');
  await migrate(db.pool, { schema });
  nc = await connectNats();
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
  await ensureStream(jsm, eventStreamFor(service));
});
afterAll(async () => {
  await deleteStreams(jsm, [stream]);
  await nc?.close();
  await db?.drop();
  await shutdownTelemetry();
});

async function publish(category: string, count: number): Promise<void> {
  for (let n = 0; n < count; n++) {
    const eventId = randomUUID();
    const h = natsHeaders();
    h.set(HsHeaders.eventId, eventId);
    const envelope = {
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
    await js.publish(eventSubject(service, envelope.type), encodeEnvelope(envelope), { msgID: eventId, headers: h });
  }
}

const gauges = async (durable: string) => {
  const text = await scrapeMetrics();
  const labels = { stream, consumer: durable };
  return { pending: metricValue(text, 'headspace_jetstream_consumer_pending', labels), ackPending: metricValue(text, 'headspace_jetstream_consumer_ack_pending', labels) };
};

describe('JetStream consumer pending gauges', () => {
  it('report the messages of its subjects a durable has not been delivered yet', async () => {
    const durable = `idle-${uniqueToken('d')}`;
    await ensureDurableConsumer(jsm, stream, { durable, filterSubjects: eventSubject(service, 'idle.>'), ackWaitMs: 30_000, maxDeliver: 11, maxAckPending: 1_000 });
    const unwatch = watchConsumerPending(js, stream, durable);
    await publish('idle', 6);
    await publish('elsewhere', 3);
    try {
      expect(await gauges(durable)).toEqual({ pending: 6, ackPending: 0 });
    } finally {
      unwatch();
    }
  });

  it("follow a running consumer: what it holds unacknowledged is ack-pending, the rest pending, both 0 once it is through", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const durable = `busy-${uniqueToken('d')}`;
    const consumer = await createConsumer({
      js,
      pool: db.pool,
      schema,
      stream,
      durable,
      filterSubjects: eventSubject(service, 'busy.>'),
      batch: 4,
      onError: () => undefined,
      handle: () => gate,
    });
    try {
      await publish('busy', 10);
      await waitFor(
        async () => {
          const { pending, ackPending } = await gauges(durable);
          return ackPending !== undefined && ackPending > 0 && pending! + ackPending === 10;
        },
        { timeoutMs: 30_000, message: 'the consumer to hold messages unacknowledged and the gauges to add up to 10' },
      );
      release();
      await waitFor(async () => (await gauges(durable)).pending === 0 && (await gauges(durable)).ackPending === 0, {
        timeoutMs: 30_000 + CONSUMER_INFO_MAX_AGE_MS,
        message: 'both gauges to drop to 0',
      });
      expect(metricValue(await scrapeMetrics(), 'headspace_consumer_dead_lettered_total', { consumer: durable })).toBe(0);
    } finally {
      release();
      await consumer.stop();
    }
  });
});
