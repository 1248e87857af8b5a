import { randomUUID } from 'node:crypto';
import { shutdownTelemetry, startTelemetry, withSpan } from '@headspace/telemetry';
import { createTestDatabase, type TestDatabase } from '@headspace/testing';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventStore } from './event-store';
import { migrate } from './migrate';

const schema = 'es_trace';
let db: TestDatabase;
let store: EventStore;

const stream = () => `thing-${randomUUID()}`;
const ev = (n: number) => ({ type: 'thing.happened', data: { n } });
const CALLER = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

beforeAll(async () => {
  startTelemetry({ serviceName: 'trace-metadata-spec', env: {}, spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })] });
  db = await createTestDatabase('estrace');
  await migrate(db.pool, { schema });
  store = new EventStore({ pool: db.pool, schema });
});
afterAll(async () => {
  await db?.drop();
  await shutdownTelemetry();
});

const metadataOf = async (id: string) => (await store.readStream(id)).map((e) => e.metadata);

describe('the trace an event was appended in', () => {
  it('is stamped from the active span on every event of every kind of append, so what reads the event continues that trace', async () => {
    const [one, many, once] = [stream(), stream(), stream()];
    const traceparent = await withSpan('command', {}, async (span) => {
      await store.append(one, [ev(1), ev(2)], { expected: 'no-stream' });
      await store.appendMany([{ streamId: many, events: [ev(3)], expected: 'no-stream' }]);
      await store.appendOnce([{ streamId: once, events: [ev(4)], commandId: randomUUID() }]);
      return `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;
    });
    for (const id of [one, many, once]) for (const metadata of await metadataOf(id)) expect(metadata.traceparent).toBe(traceparent);
  });

  it('keeps the trace its writer named (the request context or explicit metadata) over the active span', async () => {
    const [fromContext, fromMetadata, blank] = [stream(), stream(), stream()];
    await withSpan('command', {}, async () => {
      await store.append(fromContext, [ev(1)], { expected: 'no-stream', context: { commandId: randomUUID(), traceparent: CALLER, tracestate: 'k=v' } });
      await store.append(fromMetadata, [ev(2)], { expected: 'no-stream', metadata: { traceparent: CALLER } });
      // A writer that copies an absent trace leaves the key undefined: the active span fills it.
      await store.append(blank, [ev(3)], { expected: 'no-stream', metadata: { traceparent: undefined } });
    });
    expect((await metadataOf(fromContext))[0]).toMatchObject({ traceparent: CALLER, tracestate: 'k=v' });
    expect((await metadataOf(fromMetadata))[0].traceparent).toBe(CALLER);
    expect((await metadataOf(blank))[0].traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });

  it('is absent when no span is active', async () => {
    const id = stream();
    await store.append(id, [ev(1)], { expected: 'no-stream' });
    expect((await metadataOf(id))[0]).not.toHaveProperty('traceparent');
  });
});
