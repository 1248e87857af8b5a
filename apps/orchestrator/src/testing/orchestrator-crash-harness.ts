import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setSubjectNamespace } from '@headspace/contracts';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { createTestDatabase, deleteNamespaceStreams, waitFor, type TestDatabase } from '@headspace/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { killProcess, startOrchestratorProcess } from './orchestrator-process';
// Crash specs boot the real services the orchestrator talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../../team-manager/src/config';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as CostGovernorModule } from '../../../cost-governor/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as COST_GOVERNOR, configSchema as costGovernorConfig } from '../../../cost-governor/src/config';

const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

export interface OrchestratorCrashHarnessOptions {
  /** Names the database, the subject namespace and the scratch directory. */
  label: string;
  /** Files written under the scratch directory before anything starts (path relative to it → content). */
  files?: Record<string, string>;
  /**
   * The orchestrator's own environment besides the database, NATS and namespace. Default: the
   * in-process simulator slowed down (so a kill lands between turns), the scratch directory's
   * `projects`, `runs` and `agents`, and short session leases and sweeps (so a restart resumes soon).
   */
  orchestratorEnv?: (scratch: string) => Record<string, string>;
}

export interface OrchestratorCrashHarness {
  db: TestDatabase;
  nc: NatsConnection;
  /** The scratch directory: `projects` (the allowed sources), `runs`, `agents`. */
  scratch: string;
  /** SIGKILL (no shutdown hook runs) once `seen` holds, then `check` on the dead process's log, then a new orchestrator. */
  crashWhen(what: string, seen: () => Promise<boolean>, check?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export const slowSimulatorEnv = (scratch: string): Record<string, string> => ({
  ANTHROPIC_API_KEY: '',
  HS_SIMULATOR_LATENCY: '400,200',
  HS_SOURCE_ROOTS: join(scratch, 'projects'),
  HS_WORKSPACES_DIR: join(scratch, 'runs'),
  HS_AGENT_HOME: join(scratch, 'agents'),
  SESSION_LEASE_MS: '2000',
  SESSION_SWEEP_MS: '300',
  RUN_SWEEP_MS: '300',
});

/**
 * The setting of every crash spec: the team-manager and the cost governor in this process (they keep
 * running), the orchestrator as a real process the spec kills with SIGKILL and starts again, all in a
 * subject namespace of their own on a database of their own.
 */
export async function startOrchestratorCrashHarness(options: OrchestratorCrashHarnessOptions): Promise<OrchestratorCrashHarness> {
  const namespace = `${options.label}-${randomBytes(3).toString('hex')}`;
  const db = await createTestDatabase(options.label);
  const scratch = await mkdtemp(join(tmpdir(), `hs-${options.label}-`));
  await mkdir(join(scratch, 'projects'), { recursive: true });
  for (const [path, content] of Object.entries(options.files ?? {})) {
    await mkdir(dirname(join(scratch, path)), { recursive: true });
    await writeFile(join(scratch, path), content);
  }
  const env = { DATABASE_URL: db.url, NATS_URL: natsUrl, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace };
  setSubjectNamespace(namespace);
  const apps: NestFastifyApplication[] = [];
  for (const module of [TeamManagerModule.forRoot(loadConfig(teamManagerConfig, env, TEAM_MANAGER)), CostGovernorModule.forRoot(loadConfig(costGovernorConfig, env, COST_GOVERNOR))]) {
    const app = await createServiceApp(module, { bufferLogs: false });
    await app.init();
    apps.push(app);
  }
  const nc = await connect({ servers: natsUrl });
  const start = () => startOrchestratorProcess({ ...env, ...(options.orchestratorEnv ?? slowSimulatorEnv)(scratch) });
  let orchestrator: ChildProcess = await start();

  return {
    db,
    nc,
    scratch,
    async crashWhen(what, seen, check) {
      await waitFor(async () => (await seen()) || undefined, { timeoutMs: 120_000, intervalMs: 10, message: what });
      await killProcess(orchestrator);
      await check?.();
      orchestrator = await start();
    },
    async close() {
      if (orchestrator.exitCode === null) await killProcess(orchestrator);
      await nc.close();
      for (const app of apps.reverse()) await app.close();
      const cleanup = await connect({ servers: natsUrl });
      await deleteNamespaceStreams(cleanup, namespace).finally(() => cleanup.close());
      setSubjectNamespace('');
      await db.drop();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}
