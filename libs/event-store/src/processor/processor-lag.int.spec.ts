import { randomUUID } from 'node:crypto';
import { shutdownTelemetry, startTelemetry } from '@headspace/telemetry';
import { createTestDatabase, metricValue, scrapeMetrics, waitFor, type TestDatabase } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventStore } from '../event-store';
import { migrate } from '../migrate';
import { lagSql } from './processor-sql';
import { ProcessorRunner } from './processor-runner';

const schema = 'lag';
let db: TestDatabase;
let store: EventStore;

beforeAll(async () => {
  startTelemetry({ serviceName: 'processor-lag-spec', env: {} });
  db = await createTestDatabase('processor_lag');
  await migrate(db.pool, { schema });
  store = new EventStore({ pool: db.pool, schema });
});
afterAll(async () => {
  await db?.drop();
  await shutdownTelemetry();
});

/** Appends `count` events of `type`, each on a stream of its own, in `count` transactions. */
async function appendMany(type: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await store.append(`lagging-${randomUUID()}`, [{ type, data: { i } }], { expected: 'no-stream' });
}

const lagOf = async (processor: string) => metricValue(await scrapeMetrics(), 'headspace_processor_lag', { processor, schema });

describe('headspace.processor.lag', () => {
  it("is the processor's backlog: the events of its types after its checkpoint, and 0 once it caught up", async () => {
    const wanted = `wanted.${randomUUID().slice(0, 8)}`;
    let handled = 0;
    const name = `lagging-${randomUUID()}`;
    const options = {
      pool: db.pool,
      schema,
      name,
      types: [wanted],
      pollIntervalMs: 5,
      onError: () => undefined,
      handle: async (events: unknown[]) => void (handled += events.length),
    };
    const first = new ProcessorRunner(options);
    first.start();
    await first.waitUntilCaughtUp();
    await first.stop();

    await appendMany(wanted, 7);
    await appendMany('other.happened', 5);
    expect(await lagOf(name)).toBe(7);
    expect(handled).toBe(0);

    const second = new ProcessorRunner(options);
    second.start();
    try {
      await waitFor(() => handled === 7, { timeoutMs: 30_000, message: 'the restarted processor to handle its backlog' });
      await second.waitUntilCaughtUp();
      // The checkpoint commits with the batch: once it has handled the events, nothing of its types is left after it.
      await waitFor(async () => (await lagOf(name)) === 0, { timeoutMs: 30_000, message: 'the lag to drop to 0' });
    } finally {
      await second.stop();
    }
  });

  it('counts a backlog with a range scan of the log-order index from the checkpoint, not a scan of the log', async () => {
    const bulk = 'lag_bulk';
    await migrate(db.pool, { schema: bulk });
    await db.pool.query(
      `INSERT INTO ${bulk}.events (event_id, stream_id, stream_version, category, type, data)
       SELECT gen_random_uuid(), 'bulk-' || g, 1, 'bulk', CASE WHEN g % 2 = 0 THEN 'bulk.even' ELSE 'bulk.odd' END, '{}'::jsonb
         FROM generate_series(1, 50000) AS g`,
    );
    await db.pool.query(`ANALYZE ${bulk}.events`);
    // A checkpoint 20 events before the end of a 50,000-event log.
    await db.pool.query(
      `INSERT INTO ${bulk}.checkpoints (processor, transaction_id, global_position)
       SELECT 'near-the-end', transaction_id, global_position FROM ${bulk}.events ORDER BY transaction_id, global_position OFFSET 49980 LIMIT 1`,
    );
    const query = (prefix: string) => db.pool.query(`${prefix}${lagSql(bulk)}`, ['near-the-end', ['bulk.even'], 100_000]);
    expect(Number((await query('')).rows[0].lag)).toBe(10); // 19 events after it, 10 of them even
    const { rows } = await query('EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ');
    const plan = (rows[0] as { 'QUERY PLAN': unknown })['QUERY PLAN'];
    const scans: Array<{ type: string; relation?: string; index?: string; rows: number }> = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (node === null || typeof node !== 'object') return;
      const record = node as Record<string, unknown>;
      if (typeof record['Node Type'] === 'string' && String(record['Node Type']).includes('Scan')) {
        scans.push({ type: String(record['Node Type']), relation: record['Relation Name'] as string | undefined, index: record['Index Name'] as string | undefined, rows: Number(record['Actual Rows']) });
      }
      Object.values(record).forEach(walk);
    };
    walk(plan);
    const eventScans = scans.filter((s) => s.relation === 'events');
    expect(eventScans).toEqual([expect.objectContaining({ index: 'events_log_order', rows: 19 })]);
  });
});
