import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getRun, setSubjectNamespace, startRun } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { deleteNamespaceStreams, waitFor } from '@headspace/testing';
import { benchDatabase, type BenchRow } from './bench-kit';
import { benchNats, launchService, type ServiceProcess } from './service-process';

/** `npm run bench` runs from the checkout (examples/ is there, not in dist/). */
const REPO = resolve(process.env.HS_ROOT ?? process.cwd());

/** The simulator answering like a fast Claude call: first token after 600 ms, then 80 output tokens/s. */
const MODEL_LIKE_LATENCY = '600,80';

interface RunMeasures {
  walls: number[];
  shares: number[];
  perCall: number[];
  sessions: number;
  calls: number;
  rssMb: number;
}

/**
 * The example run (examples/word-stats) end to end on the simulator, with the team-manager, cost
 * governor and orchestrator as real processes: wall time, and the orchestrator's share of it —
 * wall time minus the time spent inside model calls and tool calls (as the sessions recorded
 * them). Measured twice: with the simulator answering at once (~5 ms a call: the worst case, every
 * millisecond of the control plane shows) and answering like a fast model (HS_SIMULATOR_LATENCY,
 * 600 ms to the first token, 80 tokens/s), which is what a team run on Claude looks like.
 * Target: orchestration < 5 % of wall time.
 */
export async function benchExampleRun(options: { quick: boolean }): Promise<BenchRow[]> {
  const instant = await measureExampleRuns(options.quick ? 1 : 3, {});
  const rows: BenchRow[] = [
    { name: `example run wall time (${instant.walls.length} run${instant.walls.length > 1 ? 's' : ''}, ${instant.sessions} sessions, ${instant.calls} model calls each, simulator instant)`, value: mean(instant.walls) / 1000, unit: 's', note: `min ${(Math.min(...instant.walls) / 1000).toFixed(2)} s` },
    { name: 'orchestration share, simulator instant (wall − model − tool time)', value: mean(instant.shares) * 100, unit: '%', note: 'the worst case: a model call takes ~5 ms here' },
    { name: 'orchestration time per model call', value: mean(instant.perCall), unit: 'ms', note: 'git, persona leases, task board, event appends, session start/end' },
    { name: 'orchestrator RSS after the runs', value: instant.rssMb, unit: 'MB' },
  ];
  if (options.quick) return rows;
  const modelLike = await measureExampleRuns(1, { HS_SIMULATOR_LATENCY: MODEL_LIKE_LATENCY });
  const share = mean(modelLike.shares) * 100;
  rows.push(
    { name: `example run wall time, simulator answering like a model (${MODEL_LIKE_LATENCY.replace(',', ' ms first token, ')} tok/s)`, value: mean(modelLike.walls) / 1000, unit: 's' },
    { name: 'orchestration share, simulator answering like a model', value: share, unit: '%', note: `target < 5 %: ${share < 5 ? 'met' : 'NOT met'}; ${mean(modelLike.perCall).toFixed(1)} ms per model call` },
  );
  return rows;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function measureExampleRuns(runs: number, extraEnv: Record<string, string>): Promise<RunMeasures> {
  const db = await benchDatabase('examplerun');
  const namespace = `bench-run-${randomBytes(3).toString('hex')}`;
  const workspaces = await mkdtemp(join(tmpdir(), 'hs-bench-run-'));
  const nc = await benchNats();
  setSubjectNamespace(namespace);
  const services: ServiceProcess[] = [];
  try {
    const env = {
      DATABASE_URL: db.url,
      HS_NAMESPACE: namespace,
      HS_WORKSPACES_DIR: join(workspaces, 'runs'),
      HS_AGENT_HOME: join(workspaces, 'agents'),
      HS_SIMULATOR_SCENARIOS: join(REPO, 'examples', 'scenarios', 'word-stats'),
      ANTHROPIC_API_KEY: '',
      ...extraEnv,
    };
    for (const name of ['team-manager', 'cost-governor', 'orchestrator']) services.push(await launchService(name, env));
    const goal = readFileSync(join(REPO, 'examples', 'word-stats', 'GOAL.md'), 'utf8');
    const out: RunMeasures = { walls: [], shares: [], perCall: [], sessions: 0, calls: 0, rssMb: 0 };
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const { runId } = await request(nc, startRun, { team: `bench-${i}`, goal, source: join(REPO, 'examples', 'word-stats'), mode: 'v3', operator: 'auto' });
      const view = await waitFor(
        async () => {
          const v = await request(nc, getRun, { runId });
          if (v.phase === 'failed') throw new Error(`run failed: ${v.failure}`);
          return v.phase === 'completed' ? v : undefined;
        },
        { timeoutMs: 600_000, intervalMs: 20, message: 'the example run' },
      );
      const wall = performance.now() - t0;
      const { rows } = await db.pool.query<{ busy: string; n: string; calls: string }>(
        `SELECT coalesce(sum((data->>'durationMs')::float8), 0) AS busy, count(DISTINCT data->>'sessionId') AS n,
                count(*) FILTER (WHERE type = 'session.model-called') AS calls FROM orchestrator.events
          WHERE type IN ('session.model-called', 'session.tool-called') AND data->>'sessionId' LIKE $1`,
        [`${runId}.%`],
      );
      out.walls.push(wall);
      out.shares.push(Math.max(0, 1 - Number(rows[0].busy) / wall));
      out.perCall.push((wall - Number(rows[0].busy)) / Math.max(1, Number(rows[0].calls)));
      out.sessions = Number(rows[0].n);
      out.calls = Number(rows[0].calls);
      if (view.verdict !== 'done') throw new Error(`run ended ${view.verdict}`);
    }
    out.rssMb = services[2].rssMb();
    return out;
  } finally {
    setSubjectNamespace('');
    for (const s of services.reverse()) await s.stop();
    await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
    await nc.close();
    await db.drop();
    await rm(workspaces, { recursive: true, force: true });
  }
}
