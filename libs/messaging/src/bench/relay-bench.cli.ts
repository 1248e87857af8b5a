/**
 * `node -r @swc-node/register libs/messaging/src/bench/relay-bench.cli.ts [events] [rounds]` — prints
 * relay throughput against raw pipelined js.publish (DATABASE_URL / NATS_URL or the defaults;
 * HS_BENCH_TELEMETRY=1 to run with the OpenTelemetry SDK started).
 */
import { shutdownTelemetry, startTelemetry } from '@headspace/telemetry';
import { connect } from '@nats-io/transport-node';
import { Pool } from 'pg';
import { benchRelay } from './relay-throughput.bench';

async function main(events: number, rounds: number): Promise<void> {
  // With HS_BENCH_TELEMETRY=1 the SDK records every span (as in a service), else the API is a no-op.
  if (process.env.HS_BENCH_TELEMETRY === '1') startTelemetry({ serviceName: 'relay-bench', env: {} });
  const pool = new Pool({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', max: 5 });
  const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  try {
    for (let r = 0; r < rounds; r++) {
      for (const row of await benchRelay({ pool, nc, events })) {
        const ratio = row.baseline ? ` = ${((row.value / row.baseline) * 100).toFixed(0)}% of raw ${Math.round(row.baseline)}` : '';
        console.log(`${row.name}: ${Math.round(row.value)} ${row.unit}${ratio} (${row.note ?? ''})`);
      }
    }
  } finally {
    await nc.close();
    await pool.end();
    await shutdownTelemetry();
  }
}

main(Number(process.argv[2] ?? 20_000), Number(process.argv[3] ?? 3)).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
