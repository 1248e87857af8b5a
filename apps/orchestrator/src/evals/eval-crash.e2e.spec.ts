import { type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setSubjectNamespace, startEvalRun } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { createTestDatabase, deleteNamespaceStreams, waitFor, type TestDatabase } from '@headspace/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killProcess, startOrchestratorProcess } from '../testing/orchestrator-process';
// The spec boots the real services the eval run talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../../team-manager/src/config';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as CostGovernorModule } from '../../../cost-governor/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as COST_GOVERNOR, configSchema as costGovernorConfig } from '../../../cost-governor/src/config';

const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

const SUITE = `
name: crash
tasks:
  - id: first
    prompt: Write the release notes to NOTES.md.
    graders:
      - { type: file, path: NOTES.md, matches: "^# Release notes$" }
  - id: second
    prompt: Write the release notes; the check greps them.
    graders:
      - { type: command, command: "grep -q 'Release notes' NOTES.md" }
      - { type: rubric, rubric: "The notes list at least one change." }
`;

/**
 * The orchestrator as a real process, killed with SIGKILL (no shutdown hook runs) during an eval
 * run of two tasks — once the first task's ask has started, and again once the second's has — and
 * started again each time. The run must resume at the task its stream names: each task's ask
 * started once, each task graded once, the run completed once with every task passed.
 */
describe('orchestrator killed mid-eval-run', () => {
  let db: TestDatabase;
  let nc: NatsConnection;
  let workspaces: string;
  const namespace = `evalcrash-${randomBytes(3).toString('hex')}`;
  const apps: NestFastifyApplication[] = [];
  let orchestrator: ChildProcess | undefined;

  const env = () => ({ DATABASE_URL: db.url, NATS_URL: natsUrl, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace });

  const startOrchestrator = () =>
    startOrchestratorProcess({
      ...env(),
      ANTHROPIC_API_KEY: '',
      // Slow enough that a kill lands inside a task's ask.
      HS_SIMULATOR_LATENCY: '400,200',
      // The eval scripts from the source tree, whichever build (dist/ or source) the process runs.
      HS_SIMULATOR_SCENARIOS: join(__dirname, '..', '..', '..', '..', 'libs', 'llm', 'scenarios'),
      HS_SOURCE_ROOTS: join(workspaces, 'projects'),
      HS_WORKSPACES_DIR: join(workspaces, 'runs'),
      HS_AGENT_HOME: join(workspaces, 'agents'),
      SESSION_LEASE_MS: '2000',
      SESSION_SWEEP_MS: '300',
      RUN_SWEEP_MS: '300',
    });

  /** How many events of `type` the run's stream and its tasks' asks hold. */
  const count = async (evalRunId: string, type: string) =>
    Number(
      (await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM orchestrator.events WHERE type = $1 AND (stream_id = $2 OR stream_id LIKE $3)`, [type, `evalrun-${evalRunId}`, `ask-${evalRunId}-t%`])).rows[0].n,
    );

  async function crashWhen(evalRunId: string, what: string, seen: () => Promise<boolean>) {
    await waitFor(async () => (await seen()) || undefined, { timeoutMs: 120_000, intervalMs: 10, message: what });
    await killProcess(orchestrator!);
    expect(await count(evalRunId, 'eval.run-completed')).toBe(0);
    orchestrator = await startOrchestrator();
  }

  beforeAll(async () => {
    db = await createTestDatabase('evalcrash');
    workspaces = await mkdtemp(join(tmpdir(), 'hs-eval-crash-'));
    await mkdir(join(workspaces, 'projects', 'notes', 'evals'), { recursive: true });
    await writeFile(join(workspaces, 'projects', 'notes', 'README.md'), '# notes\n');
    await writeFile(join(workspaces, 'projects', 'notes', 'evals', 'crash.yaml'), SUITE);
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

  it('killed inside the first task and again inside the second, the run resumes at the right task and does nothing twice', async () => {
    const { evalRunId } = await request(nc, startEvalRun, { team: 'crash', workspace: join(workspaces, 'projects', 'notes'), suite: 'evals/crash.yaml', model: 'sonnet' }, { timeoutMs: 30_000 });

    await crashWhen(evalRunId, 'the first task’s ask to start', async () => (await count(evalRunId, 'ask.started')) > 0);
    await crashWhen(evalRunId, 'the second task to start', async () => (await count(evalRunId, 'eval.task-started')) > 1);

    const completed = await waitFor(
      async () => (await db.pool.query<{ data: Record<string, unknown> }>(`SELECT data FROM orchestrator.events WHERE stream_id = $1 AND type = 'eval.run-completed'`, [`evalrun-${evalRunId}`])).rows[0],
      { timeoutMs: 180_000, intervalMs: 200, message: 'the eval run to complete' },
    );
    const grades = (await db.pool.query(`SELECT data FROM orchestrator.events WHERE stream_id = $1 AND type = 'eval.task-graded'`, [`evalrun-${evalRunId}`])).rows;
    expect(completed.data, JSON.stringify(grades)).toMatchObject({ passed: 2, total: 2 });

    // Each task: one ask, started and completed once, graded once; one completion.
    for (const type of ['ask.started', 'ask.completed', 'eval.task-started', 'eval.task-graded']) expect(await count(evalRunId, type), type).toBe(2);
    expect(await count(evalRunId, 'eval.run-completed')).toBe(1);
  }, 420_000);
});
