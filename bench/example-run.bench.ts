import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getRun, setSubjectNamespace, startRun } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { deleteNamespaceStreams, waitFor } from '@headspace/testing';
import { connect } from '@nats-io/transport-node';
import { benchDatabase, type BenchRow } from './bench-kit';
import { launchService, natsUrl, type ServiceProcess } from './service-process';

/** `npm run bench` runs from the checkout (examples/ is there, not in dist/). */
const REPO = resolve(process.env.HS_ROOT ?? process.cwd());

/**
 * The example run (examples/word-stats) end to end on the simulator, with the team-manager, cost
 * governor and orchestrator as real processes: wall time, and the orchestrator's share of it —
 * wall time minus the time spent inside model calls and tool calls (as the sessions recorded
 * them). The simulator answers in about a millisecond, so the share is an upper bound of what it
 * is against a real model. Target: orchestration < 5 % of wall time.
 */
export async function benchExampleRun(options: { quick: boolean }): Promise<BenchRow[]> {
  const runs = options.quick ? 1 : 3;
  const db = await benchDatabase('examplerun');
  const namespace = `bench-run-${randomBytes(3).toString('hex')}`;
  const workspaces = await mkdtemp(join(tmpdir(), 'hs-bench-run-'));
  const nc = await connect({ servers: natsUrl() });
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
    };
    for (const name of ['team-manager', 'cost-governor', 'orchestrator']) services.push(await launchService(name, env));
    const goal = readFileSync(join(REPO, 'examples', 'word-stats', 'GOAL.md'), 'utf8');
    const walls: number[] = [];
    const shares: number[] = [];
    const sessions: number[] = [];
    const perCall: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const { runId } = await request(nc, startRun, { team: `bench-${i}`, goal, source: join(REPO, 'examples', 'word-stats'), mode: 'v3', operator: 'auto' });
      const view = await waitFor(
        async () => {
          const v = await request(nc, getRun, { runId });
          if (v.phase === 'failed') throw new Error(`run failed: ${v.failure}`);
          return v.phase === 'completed' ? v : undefined;
        },
        { timeoutMs: 300_000, intervalMs: 20, message: 'the example run' },
      );
      const wall = performance.now() - t0;
      const { rows } = await db.pool.query<{ busy: string; n: string; calls: string }>(
        `SELECT coalesce(sum((data->>'durationMs')::float8), 0) AS busy, count(DISTINCT data->>'sessionId') AS n,
                count(*) FILTER (WHERE type = 'session.model-called') AS calls FROM orchestrator.events
          WHERE type IN ('session.model-called', 'session.tool-called') AND data->>'sessionId' LIKE $1`,
        [`${runId}.%`],
      );
      walls.push(wall);
      shares.push(Math.max(0, 1 - Number(rows[0].busy) / wall));
      perCall.push((wall - Number(rows[0].busy)) / Math.max(1, Number(rows[0].calls)));
      sessions.push(Number(rows[0].n));
      if (view.verdict !== 'done') throw new Error(`run ended ${view.verdict}`);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    return [
      { name: `example run wall time (${runs} run${runs > 1 ? 's' : ''}, ${sessions[0]} sessions each, simulator)`, value: mean(walls) / 1000, unit: 's', note: `min ${(Math.min(...walls) / 1000).toFixed(2)} s` },
      { name: 'orchestration share of the run (wall − model − tool time)', value: mean(shares) * 100, unit: '%', note: 'target < 5 %; the simulator answers in ~1 ms, so this is the worst case' },
      {
        name: 'orchestration time per model call',
        value: mean(perCall),
        unit: 'ms',
        note: `share if a call took 5 s (a typical Claude turn): ${((mean(perCall) / (mean(perCall) + 5_000)) * 100).toFixed(1)} %`,
      },
      { name: 'orchestrator RSS after the runs', value: services[2].rssMb(), unit: 'MB' },
    ];
  } finally {
    setSubjectNamespace('');
    for (const s of services.reverse()) await s.stop();
    await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
    await nc.close();
    await db.drop();
    await rm(workspaces, { recursive: true, force: true });
  }
}
