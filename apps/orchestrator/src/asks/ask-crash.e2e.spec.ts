import { execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setSubjectNamespace, startAsk } from '@headspace/contracts';
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

const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const TYPO = '# Demo\n\nThis is teh demo project.\n';

/**
 * The orchestrator as a real process, killed with SIGKILL (no shutdown hook runs) twice during an
 * ask — once its session is recorded, and again right after the agent's first tool call — and
 * started again each time; the team-manager and cost governor keep running. The ask must still
 * complete with one session, no tool call recorded twice, and the fix on its branch.
 */
describe('orchestrator killed mid-ask', () => {
  let db: TestDatabase;
  let nc: NatsConnection;
  let workspaces: string;
  const namespace = `askcrash-${randomBytes(3).toString('hex')}`;
  const apps: NestFastifyApplication[] = [];
  let orchestrator: ChildProcess | undefined;

  const env = () => ({ DATABASE_URL: db.url, NATS_URL: natsUrl, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace });

  const startOrchestrator = () =>
    startOrchestratorProcess({
      ...env(),
      ANTHROPIC_API_KEY: '',
      // Slow enough that the kill lands between turns, not after the ask ended.
      HS_SIMULATOR_LATENCY: '400,200',
      HS_SOURCE_ROOTS: join(workspaces, 'projects'),
      HS_WORKSPACES_DIR: join(workspaces, 'runs'),
      HS_AGENT_HOME: join(workspaces, 'agents'),
      SESSION_LEASE_MS: '2000',
      SESSION_SWEEP_MS: '300',
      RUN_SWEEP_MS: '300',
    });

  /** How many events of `type` the ask's streams (its own and its session's) hold. */
  const count = async (askId: string, type: string) =>
    Number(
      (await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM orchestrator.events WHERE type = $1 AND (stream_id = $2 OR stream_id LIKE $3)`, [type, `ask-${askId}`, `session-${askId}.%`]))
        .rows[0].n,
    );

  async function crashWhen(askId: string, what: string, seen: () => Promise<boolean>) {
    await waitFor(async () => (await seen()) || undefined, { timeoutMs: 120_000, intervalMs: 10, message: what });
    await killProcess(orchestrator!);
    expect(await count(askId, 'ask.completed')).toBe(0);
    orchestrator = await startOrchestrator();
  }

  beforeAll(async () => {
    db = await createTestDatabase('askcrash');
    workspaces = await mkdtemp(join(tmpdir(), 'hs-ask-crash-'));
    await mkdir(join(workspaces, 'projects', 'demo'), { recursive: true });
    await writeFile(join(workspaces, 'projects', 'demo', 'README.md'), TYPO);
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

  it('killed once its session is recorded and again after the first tool call, the ask completes once with the fix and nothing done twice', async () => {
    const { askId } = await request(nc, startAsk, { team: 'crash', prompt: 'fix the typo in README.md', workspace: join(workspaces, 'projects', 'demo') }, { timeoutMs: 30_000 });

    await crashWhen(askId, 'the ask’s session to be recorded', async () => (await count(askId, 'ask.session-started')) > 0);
    await crashWhen(askId, 'the agent’s first tool call', async () => (await count(askId, 'session.tool-called')) > 0);

    const ended = await waitFor(
      async () => (await db.pool.query<{ type: string; data: Record<string, unknown> }>(`SELECT type, data FROM orchestrator.events WHERE stream_id = $1 AND type IN ('ask.completed', 'ask.failed')`, [`ask-${askId}`])).rows[0],
      { timeoutMs: 180_000, intervalMs: 200, message: 'the ask to end' },
    );
    expect(ended).toMatchObject({ type: 'ask.completed', data: { filesChanged: ['README.md'] } });

    // One session, started once; no tool call recorded twice; one outcome.
    expect(await count(askId, 'ask.session-started')).toBe(1);
    expect(await count(askId, 'session.started')).toBe(1);
    expect(await count(askId, 'session.ended')).toBe(1);
    expect(await count(askId, 'ask.completed')).toBe(1);
    const { rows: dupes } = await db.pool.query(
      `SELECT data->>'toolUseId' AS id, count(*) FROM orchestrator.events WHERE type = 'session.tool-called' AND stream_id LIKE $1 GROUP BY 1 HAVING count(*) > 1`,
      [`session-${askId}.%`],
    );
    expect(dupes).toEqual([]);

    // The fix is on the ask's branch, once.
    const d = ended!.data as { dir: string; branch: string };
    expect(execFileSync('git', ['-C', d.dir, 'show', `${d.branch}:README.md`], { encoding: 'utf8' })).toBe('# Demo\n\nThis is the demo project.\n');
    expect(await readFile(join(workspaces, 'projects', 'demo', 'README.md'), 'utf8')).toBe(TYPO);
  }, 420_000);
});
