import { benchEventStore } from './event-store.bench';
import { printTable, type BenchRow } from './bench-kit';

/**
 * `npm run bench [-- --quick]`: prints throughput against raw baselines measured in the same run on
 * the same servers, latency percentiles and memory. Numbers, not assertions.
 */
async function main() {
  const quick = process.argv.includes('--quick');
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  const rows: BenchRow[] = [];
  const sections: Array<[string, () => Promise<BenchRow[]>]> = [
    ['event-store', () => benchEventStore({ quick, replayEvents: quick ? 100_000 : 1_000_000 })],
  ];
  for (const [name, run] of sections) {
    if (only && only !== name) continue;
    console.error(`bench: ${name}…`);
    rows.push(...(await run()));
  }
  printTable(rows);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
