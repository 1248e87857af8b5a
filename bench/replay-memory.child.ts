import { Pool } from 'pg';
import { ProcessorRunner } from '@headspace/event-store';

/**
 * Replays a whole log through a processor in a process of its own, so its RSS is the processor's
 * alone; prints one JSON line: events handled, RSS at start, peak and end (MB), rate.
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
    pool, schema, name: `replay-memory-${process.pid}`, batchSize: 1000, pollIntervalMs: 5,
    handle: async (events) => {
      handled += events.length;
      if (handled % 50_000 < events.length) peak = Math.max(peak, rss());
      if (!warm && handled >= total / 100) warm = rss();
      if (!tenth && handled >= total / 10) tenth = rss();
    },
  });
  const start = rss();
  const began = performance.now();
  runner.start();
  await runner.waitUntilCaughtUp(600_000);
  const seconds = (performance.now() - began) / 1000;
  await runner.stop();
  const end = rss();
  if (process.env.HS_BENCH_DEBUG) console.error(process.memoryUsage());
  console.log(JSON.stringify({ handled, startMb: start, warmMb: warm, tenthMb: tenth, peakMb: Math.max(peak, end), endMb: end, rate: handled / seconds }));
  await pool.end();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
