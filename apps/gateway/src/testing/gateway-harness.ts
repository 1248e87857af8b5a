import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { startTelemetry } from '@headspace/telemetry';
import { createTestDatabase, deleteNamespaceStreams, type TestDatabase } from '@headspace/testing';
import { connect } from '@nats-io/transport-node';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { AppModule as GatewayModule } from '../app.module';
import { SERVICE as GATEWAY, configSchema as gatewayConfig } from '../config';
// The harness boots the real services the specs exercise; apps never import each other outside tests.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../../team-manager/src/config';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as CostGovernorModule } from '../../../cost-governor/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as COST_GOVERNOR, configSchema as costGovernorConfig } from '../../../cost-governor/src/config';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as OrchestratorModule } from '../../../orchestrator/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as ORCHESTRATOR, configSchema as orchestratorConfig } from '../../../orchestrator/src/config';

export interface GatewayHarness {
  db: TestDatabase;
  adminToken: string;
  http: () => FastifyInstance;
  /** inject with the given bearer token (undefined = none). */
  call: (options: InjectOptions, token?: string) => Promise<LightMyRequestResponse>;
  /** A token of this role and team scope, issued through the API. */
  issueToken: (role: 'viewer' | 'operator' | 'admin', teams: string[] | '*') => Promise<string>;
  eventCount: () => Promise<number>;
  /** Stops the services; the database is dropped unless `keepDatabase`. */
  close: (keepDatabase?: boolean) => Promise<void>;
}

export interface HarnessOptions {
  label: string;
  teamManager?: boolean;
  orchestrator?: boolean;
  costGovernor?: boolean;
  env?: Record<string, string>;
  /** Use an existing database (a restart) instead of a fresh one. */
  db?: TestDatabase;
  /** Start without HS_ADMIN_TOKEN (the first start writes a token to HS_ADMIN_TOKEN_FILE: pass it in env). */
  withoutAdminToken?: boolean;
}

/** Real PostgreSQL (a fresh database) and real NATS (a fresh namespace); services booted in-process. */
export async function startGatewayHarness(options: HarnessOptions): Promise<GatewayHarness> {
  startTelemetry({ serviceName: 'headspace-gateway-spec' });
  const db = options.db ?? (await createTestDatabase(options.label));
  const namespace = `gw-${randomBytes(4).toString('hex')}`;
  const adminToken = `hst_test_admin_${randomBytes(24).toString('base64url')}`;
  const env = () => ({
    DATABASE_URL: db.url,
    NATS_URL: process.env.NATS_URL,
    LOG_LEVEL: 'warn',
    HS_NAMESPACE: namespace,
    HS_ADMIN_TOKEN: options.withoutAdminToken ? '' : adminToken,
    HS_RATE_LIMIT_MAX: '1000000',
    HS_RATE_LIMIT_ADDRESS_MAX: '1000000',
    HS_RATE_LIMIT_SPEND_MAX: '1000000',
    HS_WEBHOOK_ALLOW_PRIVATE: 'true', // spec receivers listen on 127.0.0.1; webhook-url-guard.e2e.spec.ts turns it off
    ...options.env,
  });
  const apps: NestFastifyApplication[] = [];
  const boot = async (module: Parameters<typeof createServiceApp>[0]) => {
    const app = await createServiceApp(module, { bufferLogs: false });
    await app.init();
    apps.push(app);
    return app;
  };
  if (options.teamManager !== false) await boot(TeamManagerModule.forRoot(loadConfig(teamManagerConfig, env(), TEAM_MANAGER)));
  if (options.costGovernor) await boot(CostGovernorModule.forRoot(loadConfig(costGovernorConfig, env(), COST_GOVERNOR)));
  if (options.orchestrator) await boot(OrchestratorModule.forRoot(loadConfig(orchestratorConfig, env(), ORCHESTRATOR)));
  const gateway = await boot(GatewayModule.forRoot(loadConfig(gatewayConfig, env(), GATEWAY)));
  await gateway.getHttpAdapter().getInstance().ready();

  const http = () => gateway.getHttpAdapter().getInstance() as FastifyInstance;
  const call = (opts: InjectOptions, token?: string) =>
    http().inject({ ...opts, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...opts.headers } });
  return {
    db,
    adminToken,
    http,
    call,
    issueToken: async (role, teams) => {
      const res = await call({ method: 'POST', url: '/api/v1/tokens', payload: { name: `${role}-token`, role, teams } }, adminToken);
      if (res.statusCode !== 201) throw new Error(`token not issued: ${res.statusCode} ${res.body}`);
      return res.json().token as string;
    },
    eventCount: async () => Number((await db.pool.query(`SELECT count(*)::int AS n FROM team_manager.events`)).rows[0].n),
    close: async (keepDatabase = false) => {
      const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
      await deleteNamespaceStreams(nc, namespace).finally(() => nc.close());
      for (const app of apps.reverse()) await app.close();
      if (!keepDatabase) await db.drop();
    },
  };
}
