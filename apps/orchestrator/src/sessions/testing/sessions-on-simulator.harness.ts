import { join } from 'node:path';
import { EventStore } from '@headspace/event-store';
import { loadConfig } from '@headspace/platform';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
// Specs boot the real services a session talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startCostGovernor, type CostGovernorHarness } from '../../../../cost-governor/src/testing/cost-governor-harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../../../team-manager/src/config';
import { AppModule } from '../../app.module';
import { SERVICE, configSchema } from '../../config';
import { SessionSupervisor } from '../session-supervisor';

export interface SessionsOnSimulator {
  h: CostGovernorHarness;
  orchestrator: NestFastifyApplication;
  supervisor: SessionSupervisor;
  store: EventStore;
}

export interface SessionsOnSimulatorOptions {
  /** The harness's namespace (schemas, subjects). */
  name: string;
  /** A temporary directory: runs and agent homes go under it. */
  root: string;
  /** The simulator's scenario folder. */
  scenarios: string;
  /** Extra environment for every service (LOG_LEVEL, HS_ADMIN_TOKEN, …). */
  env?: Record<string, string>;
  /** Extra environment for the orchestrator alone. */
  orchestratorEnv?: Record<string, string>;
}

/**
 * The cost governor, the team-manager and an orchestrator whose model is the Messages-API
 * simulator (no API key), all in this process on real PostgreSQL and NATS.
 */
export async function startSessionsOnSimulator(options: SessionsOnSimulatorOptions): Promise<SessionsOnSimulator> {
  const h = await startCostGovernor(options.name, options.env);
  await h.addCompanion(TeamManagerModule.forRoot(loadConfig(teamManagerConfig, h.env, TEAM_MANAGER)));
  const orchestrator = await h.addCompanion(
    AppModule.forRoot(
      loadConfig(
        configSchema,
        {
          ...h.env,
          ANTHROPIC_API_KEY: '',
          HS_SIMULATOR_SCENARIOS: options.scenarios,
          HS_WORKSPACES_DIR: join(options.root, 'runs'),
          HS_AGENT_HOME: join(options.root, 'agents'),
          ...options.orchestratorEnv,
        },
        SERVICE,
      ),
    ),
  );
  return { h, orchestrator, supervisor: orchestrator.get(SessionSupervisor), store: orchestrator.get(EventStore) };
}
