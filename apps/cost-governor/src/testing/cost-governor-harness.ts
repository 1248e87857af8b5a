import type { DynamicModule } from '@nestjs/common';
import type { RequestDefinition } from '@headspace/contracts';
import type { HeadspaceError } from '@headspace/contracts';
import { request, requestFailure, type SendRequestOptions } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { createTestDatabase, deleteNamespaceStreams, harnessNamespace, type TestDatabase } from '@headspace/testing';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { z } from 'zod';
import { AppModule } from '../app.module';
import { BudgetsProjection } from '../budgets/budgets.projection';
import { SERVICE, configSchema } from '../config';
import { SpendProjection } from '../reporting/spend.projection';
import { UsageMonitorProcess } from '../reporting/usage-monitor.process';

/**
 * The cost-governor as its clients see it, for int/e2e specs: a real app on a fresh database and a
 * NATS namespace of its own, driven through its command/query subjects.
 */
export interface CostGovernorHarness {
  db: TestDatabase;
  nc: NatsConnection;
  namespace: string;
  apps: NestFastifyApplication[];
  /** Environment every instance (and companion service) of this harness starts with. */
  env: Record<string, string>;
  send<D extends RequestDefinition>(definition: D, body: z.input<D['request']>, options?: SendRequestOptions): Promise<z.output<D['response']>>;
  sendError<D extends RequestDefinition>(definition: D, body: unknown, options?: SendRequestOptions): Promise<HeadspaceError>;
  addInstance(env?: Record<string, string>): Promise<NestFastifyApplication>;
  /** Boots another service (e.g. the team-manager in an e2e spec) on the same database and namespace. */
  addCompanion(module: DynamicModule): Promise<NestFastifyApplication>;
  /** Resolves once the first instance's projections and monitor handled everything committed so far. */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

export async function startCostGovernor(label: string, env: Record<string, string> = {}): Promise<CostGovernorHarness> {
  const db = await createTestDatabase(label);
  const namespace = harnessNamespace('cg', label);
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const baseEnv = { DATABASE_URL: db.url, NATS_URL: natsUrl, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, ...env };
  const apps: NestFastifyApplication[] = [];
  const companions: NestFastifyApplication[] = [];
  const addInstance = async (extra: Record<string, string> = {}) => {
    const config = loadConfig(configSchema, { ...baseEnv, ...extra }, SERVICE);
    const app = await createServiceApp(AppModule.forRoot(config), { bufferLogs: false });
    await app.init();
    apps.push(app);
    return app;
  };
  await addInstance();
  const nc = await connect({ servers: natsUrl, name: `spec-${namespace}` });
  return {
    db,
    nc,
    namespace,
    apps,
    env: baseEnv,
    send: (definition, body, options) => request(nc, definition, body, options),
    sendError: (definition, body, options) => requestFailure(nc, definition, body, options),
    addInstance,
    async addCompanion(module) {
      const app = await createServiceApp(module, { bufferLogs: false });
      await app.init();
      companions.push(app);
      return app;
    },
    async caughtUp() {
      const runnersOf = (app: NestFastifyApplication) => [app.get(SpendProjection).runner, app.get(BudgetsProjection).runner, app.get(UsageMonitorProcess).runner];
      for (const [index, first] of runnersOf(apps[0]).entries()) {
        const holder = apps.map((app) => runnersOf(app)[index]).find((runner) => runner.isLeaseHolder) ?? first;
        await holder.waitUntilCaughtUp();
      }
    },
    async close() {
      for (const app of [...companions.reverse(), ...apps.reverse()]) await app.close();
      await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
      await nc.close();
      await db.drop();
    },
  };
}
