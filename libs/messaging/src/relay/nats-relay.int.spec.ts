import { eventSubject } from '@headspace/contracts';
import { EventStore, migrate } from '@headspace/event-store';
import { createTestDatabase, type TestDatabase } from '@headspace/testing';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEnvelope } from '../envelope/event-envelope';
import { HsHeaders } from '../headers/hs-headers';
import { eventStreamFor } from '../provisioning/jetstream-provisioning';
import { appendEvents, connectNats, deleteStreams, readAll, uniqueToken } from '../testing/messaging-test-kit';
import { createRelay } from './nats-relay';

const schema = 'relay_svc';
const service = uniqueToken('relay');
const stream = eventStreamFor(service).name;
let db: TestDatabase;
let store: EventStore;
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  db = await createTestDatabase('msgrelay');
  await migrate(db.pool, { schema });
  store = new EventStore({ pool: db.pool, schema });
  nc = await connectNats();
  jsm = await jetstreamManager(nc);
});
afterAll(async () => {
  await deleteStreams(jsm, [stream]);
  await nc?.close();
  await db?.drop();
});

describe('relay', () => {
  it('publishes appended events to JetStream in log order with msgID = event id and the Hs-* and trace headers', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const traceparent = `00-${traceId}-00f067aa0ba902b7-01`;
    const metadata = { traceparent, tracestate: 'hs=1', correlationId: 'corr-1', causationId: 'cause-1' };
    const before = await appendEvents(store, { category: 'order', count: 7, perStream: 3, metadata });
    const relay = await createRelay({ pool: db.pool, schema, nc, service, pollIntervalMs: 5 });
    try {
      const after = await appendEvents(store, { category: 'order', count: 5, perStream: 2, from: 7, metadata });
      await relay.waitUntilCaughtUp();
      const { rows } = await db.pool.query<{ event_id: string; stream_id: string; stream_version: string; global_position: string }>(
        `SELECT event_id, stream_id, stream_version, global_position FROM ${schema}.events ORDER BY transaction_id, global_position`,
      );
      expect(rows.map((r) => r.event_id)).toEqual([...before, ...after]);

      const messages = await readAll(nc, stream);
      expect(messages.map((m) => m.header.get('Nats-Msg-Id'))).toEqual(rows.map((r) => r.event_id));
      messages.forEach((m, i) => {
        const row = rows[i];
        const body = decodeEnvelope(m.data);
        expect(m.subject).toBe(eventSubject(service, 'order.happened'));
        expect(body).toMatchObject({ eventId: row.event_id, type: 'order.happened', streamId: row.stream_id, data: { n: i } });
        expect(body.globalPosition).toBe(BigInt(row.global_position));
        expect({
          id: m.header.get(HsHeaders.eventId),
          type: m.header.get(HsHeaders.eventType),
          stream: m.header.get(HsHeaders.streamId),
          version: m.header.get(HsHeaders.streamVersion),
          position: m.header.get(HsHeaders.globalPosition),
          schemaVersion: m.header.get(HsHeaders.schemaVersion),
          correlation: m.header.get(HsHeaders.correlationId),
          causation: m.header.get(HsHeaders.causationId),
          tracestate: m.header.get('tracestate'),
        }).toEqual({
          id: row.event_id,
          type: 'order.happened',
          stream: row.stream_id,
          version: row.stream_version,
          position: row.global_position,
          schemaVersion: '1',
          correlation: 'corr-1',
          causation: 'cause-1',
          tracestate: 'hs=1',
        });
        expect(new Date(m.header.get(HsHeaders.recordedAt)).getTime()).toBe(body.recordedAt.getTime());
        expect(m.header.get('traceparent')).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
      });
      expect(relay.stats).toMatchObject({ published: 12, duplicates: 0 });
      expect(await relay.lag()).toBe(0);
    } finally {
      await relay.stop();
    }
  });
});
