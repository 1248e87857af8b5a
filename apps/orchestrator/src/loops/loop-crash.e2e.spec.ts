import { execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setSubjectNamespace, startLoop } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { createTestDatabase, deleteNamespaceStreams, waitFor, type TestDatabase } from '@headspace/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killProcess, startOrchestratorProcess } from '../testing/orchestrator-process';
// The spec boots the real services the loop talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../../team-manager/src/config';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as CostGovernorModule } from '../../../cost-governor/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as COST_GOVERNOR, configSchema as costGovernorConfig } from '../../../cost-governor/src/config';

const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const LOGIN_CHECK = `grep -q "await compare" login.mjs || { echo "AssertionError: login accepted a wrong password"; exit 1; }`;

/**
 * The orchestrator as a real process, killed with SIGKILL (no shutdown hook runs) during a loop of
 * two iterations (any-loop-learnings.yaml) — once iteration 1's session made its first model call,
 * and again once iteration 2 began — and started again each time. The loop must resume at the
 * iteration its stream names: two iterations, each begun, checkpointed and ended once, the
 * learning of the first in the prompt of the second, and success.
 */
describe('orchestrator killed mid-loop', () => {
  let db: TestDatabase;
  let nc: NatsConnection;
  let workspaces: string;
  const namespace = `loopcrash-${randomBytes(3).toString('hex')}`;
  const apps: NestFastifyApplication[] = [];
  let orchestrator: ChildProcess | undefined;

  const env = () => ({ DATABASE_URL: db.url, NATS_URL: natsUrl, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace });

  const startOrchestrator = () =>
    startOrchestratorProcess({
      ...env(),
      ANTHROPIC_API_KEY: '',
      // Slow enough that a kill lands inside an iteration.
      HS_SIMULATOR_LATENCY: '400,200',
      HS_SOURCE_ROOTS: join(workspaces, 'projects'),
      HS_WORKSPACES_DIR: join(workspaces, 'runs'),
      HS_AGENT_HOME: join(workspaces, 'agents'),
      SESSION_LEASE_MS: '2000',
      SESSION_SWEEP_MS: '300',
      RUN_SWEEP_MS: '300',
    });

  /** How many events of `type` the loop's streams (its own and its sessions') hold. */
  const count = async (loopId: string, type: string) =>
    Number(
      (await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM orchestrator.events WHERE type = $1 AND (stream_id = $2 OR stream_id LIKE $3)`, [type, `loop-${loopId}`, `session-${loopId}.%`])).rows[0]
        .n,
    );

  async function crashWhen(loopId: string, what: string, seen: () => Promise<boolean>) {
    await waitFor(async () => (await seen()) || undefined, { timeoutMs: 120_000, intervalMs: 10, message: what });
    await killProcess(orchestrator!);
    expect(await count(loopId, 'loop.stopped')).toBe(0);
    orchestrator = await startOrchestrator();
  }

  beforeAll(async () => {
    db = await createTestDatabase('loopcrash');
    workspaces = await mkdtemp(join(tmpdir(), 'hs-loop-crash-'));
    await mkdir(join(workspaces, 'projects', 'login'), { recursive: true });
    await writeFile(join(workspaces, 'projects', 'login', 'README.md'), '# login\n');
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

  it('killed inside iteration 1 and again at the start of iteration 2, the loop resumes at the right iteration and does nothing twice', async () => {
    const { loopId } = await request(
      nc,
      startLoop,
      { team: 'crash', task: 'fix the login check', workspace: join(workspaces, 'projects', 'login'), check: LOGIN_CHECK, maxIterations: 4 },
      { timeoutMs: 30_000 },
    );

    await crashWhen(loopId, 'iteration 1’s first model call', async () => (await count(loopId, 'session.model-called')) > 0);
    await crashWhen(loopId, 'iteration 2 to begin', async () => (await count(loopId, 'loop.iteration-started')) > 1);

    const stopped = await waitFor(
      async () => (await db.pool.query<{ data: Record<string, unknown> }>(`SELECT data FROM orchestrator.events WHERE stream_id = $1 AND type = 'loop.stopped'`, [`loop-${loopId}`])).rows[0],
      { timeoutMs: 180_000, intervalMs: 200, message: 'the loop to stop' },
    );
    expect(stopped.data).toMatchObject({ reason: 'succeeded' });

    // Two iterations, each begun, run as one session and ended once; one stop.
    for (const type of ['loop.iteration-started', 'loop.iteration-ended', 'session.started', 'session.ended']) expect(await count(loopId, type), type).toBe(2);
    expect(await count(loopId, 'loop.stopped')).toBe(1);
    const { rows: dupes } = await db.pool.query(
      `SELECT data->>'toolUseId' AS id, count(*) FROM orchestrator.events WHERE type = 'session.tool-called' AND stream_id LIKE $1 GROUP BY 1 HAVING count(*) > 1`,
      [`session-${loopId}.%`],
    );
    expect(dupes).toEqual([]);

    // The second session read the first one's learning.
    const { rows: prompts } = await db.pool.query<{ prompt: string }>(`SELECT data->>'prompt' AS prompt FROM orchestrator.events WHERE type = 'session.started' AND stream_id = $1`, [`session-${loopId}.loop.i2`]);
    expect(prompts[0].prompt).toContain('bcrypt.compare is async: always await it (iteration 1)');

    // One checkpoint commit per iteration on the loop's branch.
    const { rows: started } = await db.pool.query<{ data: { dir: string; branch: string } }>(`SELECT data FROM orchestrator.events WHERE stream_id = $1 AND type = 'loop.iteration-started' LIMIT 1`, [`loop-${loopId}`]);
    const { dir, branch } = started[0].data;
    const subjects = execFileSync('git', ['-C', dir, 'log', '--format=%s', branch], { encoding: 'utf8' }).split('\n').filter((s) => s.startsWith(`loop ${loopId} iteration`));
    expect(subjects).toHaveLength(2);
  }, 420_000);
});
