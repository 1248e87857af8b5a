import { execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setSubjectNamespace, startRun } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { createTestDatabase, deleteNamespaceStreams, waitFor, type TestDatabase } from '@headspace/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killProcess, startOrchestratorProcess } from '../testing/orchestrator-process';
// The spec boots the real services the run talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../../team-manager/src/config';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as CostGovernorModule } from '../../../cost-governor/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as COST_GOVERNOR, configSchema as costGovernorConfig } from '../../../cost-governor/src/config';

const repo = resolve(__dirname, '../../../..');
const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/**
 * The orchestrator as a real process, killed with SIGKILL (no shutdown hook runs) at three points
 * of the example run — during decomposition, mid-execution right after a builder's tool call, and
 * during QA — and started again each time. The team-manager and cost governor keep running. The
 * run must still complete, with no task done twice and no file write lost.
 */
describe('orchestrator killed mid-run', () => {
  let db: TestDatabase;
  let nc: NatsConnection;
  let workspaces: string;
  const namespace = `crash-${randomBytes(3).toString('hex')}`;
  const apps: NestFastifyApplication[] = [];
  let orchestrator: ChildProcess | undefined;

  const env = () => ({ DATABASE_URL: db.url, NATS_URL: natsUrl, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace });

  const startOrchestrator = () =>
    startOrchestratorProcess({
      ...env(),
      ANTHROPIC_API_KEY: '',
      HS_SIMULATOR_SCENARIOS: join(repo, 'examples', 'scenarios', 'word-stats'),
      HS_WORKSPACES_DIR: join(workspaces, 'runs'),
      HS_AGENT_HOME: join(workspaces, 'agents'),
      SESSION_LEASE_MS: '2000',
      SESSION_SWEEP_MS: '300',
      RUN_SWEEP_MS: '300',
    });

  const runEvents = async (runId: string) =>
    (await db.pool.query<{ type: string; data: Record<string, unknown> }>(`SELECT type, data FROM orchestrator.events WHERE stream_id = $1 ORDER BY stream_version`, [`run-${runId}`])).rows;

  /** How many events of `type` the run's streams (its own and its sessions') hold where `where` holds. */
  const count = async (runId: string, type: string, where = 'true', params: unknown[] = []) =>
    Number(
      (
        await db.pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM orchestrator.events WHERE type = $1 AND (stream_id = $2 OR stream_id LIKE $3) AND ${where}`,
          [type, `run-${runId}`, `session-${runId}.%`, ...params],
        )
      ).rows[0].n,
    );

  /** Polls the log until `seen` holds, then kills the orchestrator at once and starts a new one. */
  async function crashWhen(runId: string, what: string, seen: () => Promise<boolean>) {
    await waitFor(async () => (await seen()) || undefined, { timeoutMs: 120_000, intervalMs: 10, message: what });
    await killProcess(orchestrator!);
    // The kill landed mid-run: nothing after it may be recorded by the dead process.
    expect(await count(runId, 'run.completed')).toBe(0);
    orchestrator = await startOrchestrator();
  }

  beforeAll(async () => {
    db = await createTestDatabase('runcrash');
    workspaces = await mkdtemp(join(tmpdir(), 'hs-run-crash-'));
    setSubjectNamespace(namespace);
    for (const module of [TeamManagerModule.forRoot(loadConfig(teamManagerConfig, env(), TEAM_MANAGER)), CostGovernorModule.forRoot(loadConfig(costGovernorConfig, env(), COST_GOVERNOR))]) {
      const app = await createServiceApp(module, { bufferLogs: false });
      await app.init();
      apps.push(app);
    }
    nc = await connect({ servers: natsUrl });
    orchestrator = await startOrchestrator();
  }, 120_000);

  afterAll(async () => {
    if (orchestrator && orchestrator.exitCode === null) await killProcess(orchestrator);
    await nc?.close();
    for (const app of apps.reverse()) await app.close();
    const cleanup = await connect({ servers: natsUrl });
    await deleteNamespaceStreams(cleanup, namespace).finally(() => cleanup.close());
    setSubjectNamespace('');
    await db?.drop();
    await rm(workspaces, { recursive: true, force: true });
  });

  it('killed during decomposition, mid-execution and during QA, the run still completes with no task done twice and no file write lost', async () => {
    const goal = await readFile(join(repo, 'examples', 'word-stats', 'GOAL.md'), 'utf8');
    const { runId } = await request(nc, startRun, { team: 'crash', goal, source: join(repo, 'examples', 'word-stats'), mode: 'v3', operator: 'auto' }, { timeoutMs: 30_000 });

    await crashWhen(runId, 'decomposition to start', async () => (await count(runId, 'run.session-started', "data->>'purpose' = 'decompose'")) > 0);
    await crashWhen(runId, 'a builder’s tool call', async () => (await count(runId, 'session.tool-called', "stream_id LIKE $4", [`session-${runId}.task.%`])) > 0);
    await crashWhen(runId, 'QA to start', async () => (await count(runId, 'run.session-started', "data->>'purpose' = 'qa'")) > 0);

    const ended = await waitFor(
      async () => {
        const rows = await runEvents(runId);
        return rows.find((r) => r.type === 'run.completed' || r.type === 'run.failed');
      },
      { timeoutMs: 180_000, intervalMs: 200, message: 'the run to end' },
    );
    expect(ended).toMatchObject({ type: 'run.completed', data: { verdict: 'done' } });

    // No task done twice: one completed finish per task, and no tool call recorded twice.
    const finished = (await runEvents(runId)).filter((r) => r.type === 'run.task-finished' && r.data.outcome === 'completed').map((r) => r.data.taskKey);
    expect(finished.sort()).toEqual(['F1-1', 'T1', 'T2']);
    const { rows: dupes } = await db.pool.query(
      `SELECT data->>'toolUseId' AS id, count(*) FROM orchestrator.events WHERE type = 'session.tool-called' AND stream_id LIKE $1 GROUP BY 1 HAVING count(*) > 1`,
      [`session-${runId}.%`],
    );
    expect(dupes).toEqual([]);

    // Every session ran on the model and effort its run recorded (routed by the governor) before it started, across the restarts.
    const launched = new Map(
      (await db.pool.query(`SELECT data FROM orchestrator.events WHERE type = 'session.started' AND stream_id LIKE $1`, [`session-${runId}.%`])).rows.map((r) => [r.data.sessionId as string, r.data as { model: string; effort: string }]),
    );
    const recorded = (await runEvents(runId)).filter((r) => r.type === 'run.session-started').map((r) => r.data as { sessionId: string; routing?: { model: string; effort: string; fallback?: boolean } });
    expect(recorded.length).toBeGreaterThanOrEqual(6);
    for (const { sessionId, routing } of recorded) {
      expect(routing?.fallback).toBeUndefined();
      expect({ sessionId, model: launched.get(sessionId)?.model, effort: launched.get(sessionId)?.effort }).toEqual({ sessionId, model: routing?.model, effort: routing?.effort });
    }

    // No file write lost: the result has every task's work, and the project's tests pass on it.
    const dir = String(ended!.data.resultDir);
    expect(await readFile(join(dir, 'bin', 'word-stats.js'), 'utf8')).toContain('topWords');
    expect(await readFile(join(dir, 'src', 'word-stats.js'), 'utf8')).toContain('RangeError');
    expect(execFileSync(process.execPath, ['--test'], { cwd: dir, encoding: 'utf8' })).toMatch(/(ℹ|#) fail 0/);
  }, 420_000);
});
