import { Pool } from 'pg';
import { connect } from '@nats-io/transport-node';
import { benchEventStore } from './event-store.bench';
import { benchRelay } from './relay.bench';
import { benchSlice } from './slice.bench';
import { benchTaskClaims } from './task-claims.bench';
import { benchMailbox } from './mailbox.bench';
import { benchTeamManagerScale } from './team-manager-scale.bench';
import { benchCostGovernor } from './cost-governor.bench';
import { benchExampleRun } from './example-run.bench';
import { benchAgentTurn } from './agent-turn.bench';
import { benchAsk } from './ask.bench';
import { benchFleet } from './fleet.bench';
import { benchClaudeCodeTurn } from './claude-code-turn.bench';
import { benchSandbox } from './sandbox.bench';
import { runGatewayHttpBench } from './gateway-http.bench';
import { runGatewaySseBench } from './gateway-sse.bench';
import { benchOpsIngest } from './ops-ingest.bench';
import { benchWebhooks } from './webhooks.bench';
import { benchTracing } from './tracing.bench';
import { benchDashboard } from './dashboard.bench';
import { benchLearningRetrieval } from './learning-retrieval.bench';
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
    ['relay', () => withInfra((pool, nc) => benchRelay({ pool, nc, events: quick ? 5_000 : 20_000 }))],
    ['slice', () => benchSlice({ rate: 200, seconds: quick ? 5 : 15 })],
    ['task-claims', () => benchTaskClaims({ quick })],
    ['mailbox', () => benchMailbox({ quick })],
    ['team-manager-scale', () => benchTeamManagerScale({ quick })],
    ['cost-governor', () => benchCostGovernor({ quick })],
    // These two print their own tables (ratios against a bare route measured in the same run).
    ['gateway-http', () => runGatewayHttpBench({ quick }).then(() => [])],
    ['gateway-sse', () => runGatewaySseBench({ quick }).then(() => [])],
    ['agent-turn', () => benchAgentTurn({ quick })],
    ['ask', () => benchAsk({ quick })],
    ['fleet', () => benchFleet({ quick })],
    ['claude-code-turn', () => benchClaudeCodeTurn({ quick })],
    ['sandbox', () => benchSandbox({ quick })],
    ['example-run', () => benchExampleRun({ quick })],
    ['ops-ingest', () => benchOpsIngest({ quick })],
    ['webhooks', () => benchWebhooks({ quick })],
    ['tracing', () => benchTracing({ quick })],
    ['dashboard', () => benchDashboard({ quick })],
    ['learning-retrieval', () => benchLearningRetrieval({ quick })],
  ];
  for (const [name, run] of sections) {
    if (only && only !== name) continue;
    console.error(`bench: ${name}…`);
    rows.push(...(await run()));
  }
  printTable(rows);
}

async function withInfra<T>(run: (pool: Pool, nc: Awaited<ReturnType<typeof connect>>) => Promise<T>): Promise<T> {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', max: 5 });
  const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  try {
    return await run(pool, nc);
  } finally {
    await nc.close();
    await pool.end();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
