import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setSubjectNamespace, startWorkflow } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { createTestDatabase, deleteNamespaceStreams, waitFor, type TestDatabase } from '@headspace/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killProcess, startOrchestratorProcess } from '../testing/orchestrator-process';
// The spec boots the real services the workflow talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../../team-manager/src/config';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as CostGovernorModule } from '../../../cost-governor/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as COST_GOVERNOR, configSchema as costGovernorConfig } from '../../../cost-governor/src/config';

const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/**
 * The orchestrator as a real process, killed with SIGKILL (no shutdown hook runs) during a
 * three-stage pipeline — right after the first stage ended, and again once the second stage was
 * recorded as started — and started again each time. The pipeline must finish with every stage run
 * by exactly one ask, the finished stage never run again.
 */
describe('orchestrator killed between the stages of a pipeline', () => {
  let db: TestDatabase;
  let nc: NatsConnection;
  let workspaces: string;
  const namespace = `wfcrash-${randomBytes(3).toString('hex')}`;
  const apps: NestFastifyApplication[] = [];
  let orchestrator: ChildProcess | undefined;

  const env = () => ({ DATABASE_URL: db.url, NATS_URL: natsUrl, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace });

  const startOrchestrator = () =>
    startOrchestratorProcess({
      ...env(),
      ANTHROPIC_API_KEY: '',
      HS_SIMULATOR_LATENCY: '400,200',
      HS_SOURCE_ROOTS: join(workspaces, 'projects'),
      HS_WORKSPACES_DIR: join(workspaces, 'runs'),
      HS_AGENT_HOME: join(workspaces, 'agents'),
      SESSION_LEASE_MS: '2000',
      SESSION_SWEEP_MS: '300',
      RUN_SWEEP_MS: '300',
    });

  const events = async (workflowId: string, type: string) =>
    (await db.pool.query<{ stream_id: string; data: Record<string, unknown> }>(`SELECT stream_id, data FROM orchestrator.events WHERE type = $1 AND (stream_id = $2 OR stream_id LIKE $3) ORDER BY global_position`, [type, `workflow-${workflowId}`, `ask-${workflowId}--%`])).rows;

  async function crashWhen(what: string, seen: () => Promise<boolean>) {
    await waitFor(async () => (await seen()) || undefined, { timeoutMs: 120_000, intervalMs: 10, message: what });
    await killProcess(orchestrator!);
    orchestrator = await startOrchestrator();
  }

  beforeAll(async () => {
    db = await createTestDatabase('wfcrash');
    workspaces = await mkdtemp(join(tmpdir(), 'hs-workflow-crash-'));
    await mkdir(join(workspaces, 'projects', 'demo'), { recursive: true });
    await writeFile(join(workspaces, 'projects', 'demo', 'README.md'), '# Demo\n');
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

  it('killed after the first stage ended and again once the second started, the pipeline resumes at the right stage and runs each stage once', async () => {
    const { workflowId } = await request(
      nc,
      startWorkflow,
      {
        team: 'crash',
        workspace: join(workspaces, 'projects', 'demo'),
        definition: {
          name: 'crash pipeline',
          mode: 'pipeline',
          steps: [
            { id: 'plan', prompt: '[wf plan] plan it' },
            { id: 'build', prompt: '[wf left] build from {{ steps.plan.output }}' },
            { id: 'finish', prompt: '[wf right] finish after {{ steps.build.output }}' },
          ],
        },
      },
      { timeoutMs: 30_000 },
    );

    await crashWhen('the first stage to end', async () => (await events(workflowId, 'workflow.step-ended')).length > 0);
    await crashWhen('the second stage to start', async () => (await events(workflowId, 'workflow.step-started')).some((e) => e.data.stepId === 'build'));

    const ended = await waitFor(async () => (await events(workflowId, 'workflow.ended'))[0], { timeoutMs: 180_000, intervalMs: 200, message: 'the workflow to end' });
    expect(ended.data).toMatchObject({ status: 'succeeded' });

    // Each stage started once, ended once, in order; one ask and one session each.
    const started = await events(workflowId, 'workflow.step-started');
    expect(started.map((e) => [e.data.stepId, e.data.attempt])).toEqual([
      ['plan', 1],
      ['build', 1],
      ['finish', 1],
    ]);
    expect((await events(workflowId, 'workflow.step-ended')).map((e) => [e.data.stepId, e.data.status])).toEqual([
      ['plan', 'succeeded'],
      ['build', 'succeeded'],
      ['finish', 'succeeded'],
    ]);
    expect((await events(workflowId, 'ask.started')).map((e) => e.stream_id)).toEqual(['plan', 'build', 'finish'].map((s) => `ask-${workflowId}--${s}--a1`));
    expect(await events(workflowId, 'ask.completed')).toHaveLength(3);
    const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM orchestrator.events WHERE type = 'session.started' AND stream_id LIKE $1`, [`session-${workflowId}--%`]);
    expect(rows[0].n).toBe(3);
    expect(String(started[2].data.prompt)).toContain('LEFT-OUTPUT');
  }, 420_000);
});
