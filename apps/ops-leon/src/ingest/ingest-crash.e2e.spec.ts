import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createIngestKey, createOpsProject, ingestException, listGroups, setSubjectNamespace } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createTestDatabase, deleteNamespaceStreams, startServiceProcess, waitFor, type ServiceProcess, type TestDatabase } from '@headspace/testing';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { report, SCHEMA } from '../testing/ops-leon-harness';

const CALLERS = 20;
const PER_CALLER = 40;

/**
 * ops-leon as a real process on its TypeScript sources, SIGKILLed (no shutdown hook runs) while
 * 20 callers ingest events of one fingerprint, then started again. Every caller retries each
 * request left unanswered with the same event id, as a client SDK does, until it is answered:
 * the group must then count each event id exactly once.
 */
describe('ops-leon killed during an ingest burst', () => {
  const namespace = `olcrash-${randomBytes(3).toString('hex')}`;
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  let db: TestDatabase;
  let nc: NatsConnection;
  let leon: ServiceProcess | undefined;
  const startLeon = () => startServiceProcess('ops-leon', { DATABASE_URL: db.url, NATS_URL: natsUrl, HS_NAMESPACE: namespace });

  beforeAll(async () => {
    // The spec's own requests go to the subjects of the spawned service's namespace.
    setSubjectNamespace(namespace);
    db = await createTestDatabase('olcrash');
    nc = await connect({ servers: natsUrl, name: `spec-${namespace}` });
    leon = await startLeon();
  }, 60_000);

  afterAll(async () => {
    await leon?.kill();
    if (nc) {
      await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
      await nc.close();
    }
    await db?.drop();
  });

  it('a kill -9 mid-burst loses no acknowledged event and counts none twice once callers retry what went unanswered', async () => {
    await request(nc, createOpsProject, { project: 'crashy', repository: '/srv/crashy' });
    const { publicKey } = await request(nc, createIngestKey, { project: 'crashy' });
    // One fingerprint: same type, message shape and frames; only the event id differs.
    const events = Array.from({ length: CALLERS * PER_CALLER }, () => report());
    const answers = new Map<string, { groupId: string; accepted: boolean }>();
    let unanswered = 0;

    const ingest = async (event: ReturnType<typeof report>) => {
      for (;;) {
        try {
          const answer = await request(nc, ingestException, { project: 'crashy', publicKey, report: event, receivedAt: new Date().toISOString() }, { timeoutMs: 2_000 });
          answers.set(event.eventId, answer);
          return;
        } catch {
          // Timed out (killed while handling it) or no responders (down): the same event again.
          unanswered++;
          await sleep(100);
        }
      }
    };
    const callers = Array.from({ length: CALLERS }, async (_, c) => {
      for (const event of events.slice(c * PER_CALLER, (c + 1) * PER_CALLER)) await ingest(event);
    });

    // Killed once a quarter of the burst is answered, with the 20 callers' next requests in flight.
    await waitFor(() => answers.size >= events.length / 4 || undefined, { timeoutMs: 30_000, intervalMs: 5, message: 'a quarter of the burst to be answered' });
    await leon!.kill();
    const answeredAtKill = answers.size;
    expect(answeredAtKill).toBeLessThan(events.length);
    leon = await startLeon();
    await Promise.all(callers);

    expect(unanswered).toBeGreaterThan(0);
    expect(answers.size).toBe(events.length);
    expect(new Set([...answers.values()].map((a) => a.groupId)).size).toBe(1);

    const received = async () =>
      (
        await db.pool.query<{ n: string; ids: string }>(
          `SELECT count(*) AS n, count(DISTINCT data->'report'->>'eventId') AS ids FROM ${SCHEMA}.events WHERE type = 'exception.received'`,
        )
      ).rows[0];
    const group = await waitFor(
      async () => {
        const { items } = await request(nc, listGroups, { project: 'crashy' });
        return items.length === 1 && items[0].count >= events.length ? items[0] : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 100, message: 'the groups projection to count the burst' },
    );
    // Settled: nothing counted late on top.
    await sleep(500);
    const { items } = await request(nc, listGroups, { project: 'crashy' });
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ groupId: group.groupId, count: events.length });
    const { n, ids } = await received();
    expect(Number(n)).toBe(events.length);
    expect(Number(ids)).toBe(events.length);
  }, 60_000);
});
