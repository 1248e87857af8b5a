import { Pool } from 'pg';
import { EVENT_COLUMNS, ProcessorRunner } from '@headspace/event-store';

/**
 * Replays a whole log through a processor in a process of its own, so its RSS is the processor's
 * alone, after a raw ordered scan of the same log in the same process (the baseline, measured under
 * the same flags); prints one JSON line: rates, and RSS at start, 1%, 10%, peak and end (MB).
 */
async function main() {
  const [url, schema] = process.argv.slice(2);
  const pool = new Pool({ connectionString: url, max: 2 });
  await pool.query('SELECT 1');
  const rss = () => process.memoryUsage().rss / 1024 / 1024;
  let handled = 0;
  let peak = 0;
  let tenth = 0;
  let warm = 0;
  const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".events`);
  const total = Number(rows[0].n);
  const runner = new ProcessorRunner({
    pool, schema, name: `replay-memory-${process.pid}`, batchSize: 5000, pollIntervalMs: 5,
    handle: async (events) => {
      handled += events.length;
      if (handled % 50_000 < events.length) peak = Math.max(peak, rss());
      if (!warm && handled >= total / 100) warm = rss();
      if (!tenth && handled >= total / 10) tenth = rss();
    },
  });
  const rawRate = await rawOrderedScan(pool, schema);
  const start = rss();
  const began = performance.now();
  runner.start();
  await runner.waitUntilCaughtUp(600_000);
  const seconds = (performance.now() - began) / 1000;
  await runner.stop();
  const end = rss();
  if (process.env.HS_BENCH_DEBUG) console.error(process.memoryUsage());
  console.log(JSON.stringify({ handled, rawRate, startMb: start, warmMb: warm, tenthMb: tenth, peakMb: Math.max(peak, end), endMb: end, rate: handled / seconds }));
  await pool.end();
}

/** The baseline, in this same process: keyset-paged ordered reads of the same columns, no transaction. */
async function rawOrderedScan(pool: Pool, schema: string): Promise<number> {
  const began = performance.now();
  let scanned = 0;
  let cursor: [string, string] = ['0', '0'];
  for (;;) {
    const { rows } = await pool.query(
      `SELECT ${EVENT_COLUMNS}, transaction_id::text AS tx FROM "${schema}".events
        WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint) ORDER BY transaction_id, global_position LIMIT 1000`,
      cursor,
    );
    if (rows.length === 0) break;
    scanned += rows.length;
    const last = rows[rows.length - 1];
    cursor = [last.tx, last.global_position];
  }
  return scanned / ((performance.now() - began) / 1000);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
