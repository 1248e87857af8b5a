import { eventSubject, namespacedStreamName, namespacedSubject } from '@headspace/contracts';
import { jetstreamManager, AckPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { nanos } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats, deleteStreams, uniqueToken } from '../testing/messaging-test-kit';
import { ensureDurableConsumer, ensureStream, eventStreamFor, setStreamLimits } from './jetstream-provisioning';

const service = uniqueToken('prov');
const spec = eventStreamFor(service);
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  nc = await connectNats();
  jsm = await jetstreamManager(nc);
});
const limited = uniqueToken('provlim');
afterAll(async () => {
  setStreamLimits({});
  await deleteStreams(jsm, [spec.name, eventStreamFor(limited).name]);
  await nc?.close();
});

describe('provisioning as code', () => {
  it('eventStreamFor names the per-service event stream', () => {
    expect(eventStreamFor('team-manager')).toMatchObject({
      name: namespacedStreamName('HS_EVT_TEAM_MANAGER'),
      subjects: [namespacedSubject('hs.evt.team-manager.>')],
    });
  });

  it('ensureStream creates a file stream with a 2 min duplicate window, is idempotent, and updates changed settings but never lowers retention', async () => {
    const first = await ensureStream(jsm, spec);
    expect(first.action).toBe('created');
    expect(first.info.config).toMatchObject({ storage: StorageType.File, subjects: spec.subjects, duplicate_window: nanos(120_000) });

    const [a, b] = await Promise.all([ensureStream(jsm, spec), ensureStream(jsm, spec)]);
    expect([a.action, b.action]).toEqual(['unchanged', 'unchanged']);

    const changed = await ensureStream(jsm, { ...spec, duplicateWindowMs: 60_000, maxAgeMs: 3_600_000 });
    expect(changed.action).toBe('updated');
    expect(changed.info.config).toMatchObject({ duplicate_window: nanos(60_000), max_age: 0 });
    expect(changed.drift).toEqual([{ stream: spec.name, field: 'max_age', wanted: nanos(3_600_000), actual: 0 }]);
  });

  it('ensureDurableConsumer creates an explicit-ack pull consumer with one filter subject, is idempotent, and updates it', async () => {
    await ensureStream(jsm, spec);
    const wanted = { durable: 'worker', filterSubjects: eventSubject(service, 'task.>'), ackWaitMs: 10_000, maxDeliver: 5 };
    const first = await ensureDurableConsumer(jsm, spec.name, wanted);
    expect(first.action).toBe('created');
    expect(first.info.config).toMatchObject({
      durable_name: 'worker',
      ack_policy: AckPolicy.Explicit,
      filter_subject: eventSubject(service, 'task.>'),
      ack_wait: nanos(10_000),
      max_deliver: 5,
    });
    expect(first.info.config.deliver_subject).toBeUndefined();
    expect((await ensureDurableConsumer(jsm, spec.name, wanted)).action).toBe('unchanged');

    const updated = await ensureDurableConsumer(jsm, spec.name, { ...wanted, maxDeliver: 8, backoffMs: [15_000, 30_000] });
    expect(updated.action).toBe('updated');
    expect(updated.info.config).toMatchObject({ max_deliver: 8, backoff: [nanos(15_000), nanos(30_000)] });
    expect((await ensureDurableConsumer(jsm, spec.name, { ...wanted, maxDeliver: 8, backoffMs: [15_000, 30_000] })).action).toBe('unchanged');
  });

  it('an event stream carries the configured retention limits (HS_STREAM_MAX_AGE / HS_STREAM_MAX_BYTES), and loses them when they are unset', async () => {
    setStreamLimits({ maxAgeMs: 30 * 86_400_000, maxBytes: 64 * 1024 ** 2 });
    const created = await ensureStream(jsm, eventStreamFor(limited));
    expect(created.action).toBe('created');
    expect((await jsm.streams.info(eventStreamFor(limited).name)).config).toMatchObject({ max_age: nanos(30 * 86_400_000), max_bytes: 64 * 1024 ** 2 });

    setStreamLimits({ maxAgeMs: 30 * 86_400_000, maxBytes: 128 * 1024 ** 2 });
    expect((await ensureStream(jsm, eventStreamFor(limited))).action).toBe('updated');
    expect((await ensureStream(jsm, eventStreamFor(limited))).action).toBe('unchanged');
    expect((await jsm.streams.info(eventStreamFor(limited).name)).config.max_bytes).toBe(128 * 1024 ** 2);

    setStreamLimits({});
    expect((await ensureStream(jsm, eventStreamFor(limited))).action).toBe('updated');
    expect((await jsm.streams.info(eventStreamFor(limited).name)).config).toMatchObject({ max_age: 0, max_bytes: -1 });
  });
});
