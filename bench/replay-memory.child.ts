import { Pool } from 'pg';
import { EVENT_COLUMNS, PgClient, ProcessorRunner } from '@headspace/event-store';

/**
 * Replays a whole log through a processor in a process of its own, so its RSS is the processor's
 * alone, alternating with a raw ordered scan of the same log in the same process (the baseline,
 * measured under the same flags). Both rates are medians of ROUNDS alternating runs: a single run of
 * either swung by ±20 % between bench runs (cache state, the other processes on two cores). The
 * memory figures are the first replay's, from a cold start. Prints one JSON line: rates, and RSS at
 * start, 1%, 10%, peak and end (MB).
 */
const ROUNDS = 3;

async function main() {
  const [url, schema] = process.argv.slice(2);
  const pool = new Pool({ connectionString: url, max: 2, Client: PgClient });
  await pool.query('SELECT 1');
  const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".events`);
  const total = Number(rows[0].n);
  const rawRates: number[] = [];
  const rates: number[] = [];
  let memory: Memory | undefined;
  for (let round = 0; round < ROUNDS; round++) {
    rawRates.push(await rawOrderedScan(pool, schema));
    const replay = await replayOnce(pool, schema, total, round);
    rates.push(replay.rate);
    memory ??= replay.memory;
  }
  if (process.env.HS_BENCH_DEBUG) console.error(process.memoryUsage(), { rates, rawRates });
  console.log(JSON.stringify({ handled: total, rawRate: median(rawRates), rate: median(rates), ...memory }));
  await pool.end();
}

interface Memory {
  startMb: number;
  warmMb: number;
  tenthMb: number;
  peakMb: number;
  endMb: number;
}

/** One replay of the whole log by a fresh processor (its own checkpoint from 0). */
async function replayOnce(pool: Pool, schema: string, total: number, round: number): Promise<{ rate: number; memory: Memory }> {
  const rss = () => process.memoryUsage().rss / 1024 / 1024;
  let handled = 0;
  let peak = 0;
  let tenth = 0;
  let warm = 0;
  const runner = new ProcessorRunner({
    pool, schema, name: `replay-memory-${process.pid}-${round}`, batchSize: 2000, pollIntervalMs: 5,
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
  return { rate: handled / seconds, memory: { startMb: start, warmMb: warm, tenthMb: tenth, peakMb: Math.max(peak, end), endMb: end } };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

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
