import { migrate } from '@headspace/event-store';
import { shutdownTelemetry, startTelemetry } from '@headspace/telemetry';
import { createTestDatabase, metricSamples, scrapeMetrics, startNatsCluster, waitFor, type NatsClusterHandle, type TestDatabase } from '@headspace/testing';
import { jetstream, jetstreamManager, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createConsumer } from '../consumer/event-consumer';
import { createRelay } from '../relay/nats-relay';
import { connectNats, uniqueToken } from '../testing/messaging-test-kit';
import { eventStreamFor, provisioningDrift, setStreamLimits, type StreamLimits } from './jetstream-provisioning';

const schema = 'cluster_prov';
let cluster: NatsClusterHandle;
let db: TestDatabase;
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  startTelemetry({ serviceName: 'cluster-provisioning-spec', env: {} });
  cluster = await startNatsCluster({ size: 3 });
  db = await createTestDatabase('clusterprov');
  await migrate(db.pool, { schema });
  nc = await connectNats(cluster.servers);
  jsm = await jetstreamManager(nc);
});
afterEach(() => setStreamLimits({}));
afterAll(async () => {
  await nc?.close();
  await cluster?.dispose();
  await db?.drop();
  await shutdownTelemetry();
});

/** A service start as far as streams go: the configuration is read, and the relay provisions its stream on the way up. */
async function startService(service: string, limits: StreamLimits): Promise<void> {
  setStreamLimits(limits);
  const relay = await createRelay({ pool: db.pool, schema, nc, service, pollIntervalMs: 50, instanceId: uniqueToken('relay') });
  await relay.stop();
}

/** A consumer's start: it declares its durable (createConsumer provisions it), then stops. */
async function startConsumer(service: string, durable: string): Promise<void> {
  const consumer = await createConsumer({
    js: jetstream(nc),
    pool: db.pool,
    schema,
    stream: eventStreamFor(service).name,
    durable,
    filterSubjects: eventStreamFor(service).subjects,
    handle: async () => undefined,
  });
  await consumer.stop();
}

const streamInfo = (service: string) => jsm.streams.info(eventStreamFor(service).name);

describe('JetStream provisioning on a 3-node cluster', () => {
  it('with HS_JETSTREAM_REPLICAS=3 the event stream is R3 on three nodes, and stays R3 after every service restarts', async () => {
    const service = uniqueToken('r3');
    await startService(service, { replicas: 3 });
    const info = await streamInfo(service);
    expect(info.config.num_replicas).toBe(3);
    expect(new Set([info.cluster?.leader, ...(info.cluster?.replicas ?? []).map((r) => r.name)])).toEqual(new Set(['n1', 'n2', 'n3']));

    await startService(service, { replicas: 3 });
    await startService(service, { replicas: 3 });
    expect((await streamInfo(service)).config.num_replicas).toBe(3);
  });

  it('a missing stream is created with the configured retention, storage and placement', async () => {
    const service = uniqueToken('retain');
    await startService(service, { replicas: 1, maxAgeMs: 7 * 86_400_000, maxBytes: 256 * 1024 ** 2, storage: 'memory', placement: { tags: ['node:n2'] } });
    const info = await streamInfo(service);
    expect(info.config).toMatchObject({ num_replicas: 1, max_age: nanos(7 * 86_400_000), max_bytes: 256 * 1024 ** 2, storage: StorageType.Memory });
    expect(info.config.placement?.tags).toEqual(['node:n2']);
    expect(info.cluster?.leader).toBe('n2');
  });

  it('an operator-raised stream keeps its replicas and retention after a service restart, and the drift is reported and counted once per start', async () => {
    const service = uniqueToken('raised');
    const configured = { replicas: 1, maxAgeMs: 3_600_000 };
    await startService(service, configured);
    const name = eventStreamFor(service).name;
    const { config } = await jsm.streams.info(name);
    await jsm.streams.update(name, { ...config, num_replicas: 3, max_age: 0 });

    await startService(service, configured);
    await startService(service, configured);

    expect((await streamInfo(service)).config).toMatchObject({ num_replicas: 3, max_age: 0 });
    const drift = provisioningDrift().filter((d) => d.stream === name);
    expect(drift).toEqual(
      expect.arrayContaining([
        { stream: name, field: 'num_replicas', wanted: 1, actual: 3 },
        { stream: name, field: 'max_age', wanted: nanos(3_600_000), actual: 0 },
      ]),
    );
    const counted = metricSamples(await scrapeMetrics(), 'headspace_jetstream_provisioning_drift_total').filter((s) => s.labels.stream === name);
    expect(counted.map((s) => [s.labels.field, s.value]).sort()).toEqual([
      ['max_age', 1],
      ['num_replicas', 1],
    ]);
  });

  it('a stream whose storage differs from the configuration is reported as drift, never recreated: its messages stay', async () => {
    const service = uniqueToken('storage');
    const spec = eventStreamFor(service);
    await jsm.streams.add({ name: spec.name, subjects: spec.subjects, storage: StorageType.Memory, num_replicas: 3 });
    await jetstream(nc).publish(spec.subjects[0].replace('>', 'kept.one'), 'x');

    await startService(service, { replicas: 3, storage: 'file' });

    const info = await streamInfo(service);
    expect(info.config.storage).toBe(StorageType.Memory);
    expect(info.state.messages).toBe(1);
    expect(provisioningDrift()).toContainEqual({ stream: spec.name, field: 'storage', wanted: StorageType.File, actual: StorageType.Memory });
  });

  it("durable consumers take their stream's replicas, and an existing consumer's are raised when the stream's are", async () => {
    const service = uniqueToken('consumers');
    const name = eventStreamFor(service).name;
    await startService(service, { replicas: 1 });
    await startConsumer(service, 'early');
    expect((await jsm.consumers.info(name, 'early')).config.num_replicas).toBe(1);

    const { config } = await jsm.streams.info(name);
    await jsm.streams.update(name, { ...config, num_replicas: 3 });
    // The stream's peers are still moving here: provisioning rides out the API timeouts that causes.
    await startService(service, { replicas: 1 });
    await startConsumer(service, 'early');
    await startConsumer(service, 'late');

    // Reads go through waitFor for the same reason; the peer set grows while the server moves the consumer.
    const early = await waitFor(() => jsm.consumers.info(name, 'early'));
    expect(early.config.num_replicas).toBe(3);
    await waitFor(async () => {
      const { cluster: peers } = await jsm.consumers.info(name, 'early');
      return new Set([peers?.leader, ...(peers?.replicas ?? []).map((r) => r.name)].filter(Boolean)).size === 3;
    });
    const late = await waitFor(() => jsm.consumers.info(name, 'late'));
    expect(late.config.num_replicas).toBe(3);
  });
});
