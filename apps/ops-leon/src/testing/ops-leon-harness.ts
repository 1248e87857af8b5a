import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { EventRegistry, HeadspaceError, opsLeonEvents, type RequestDefinition } from '@headspace/contracts';
import { EventStore, migrate } from '@headspace/event-store';
import { request, requestFailure, type SendRequestOptions } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { createTestDatabase, deleteNamespaceStreams, harnessNamespace, ProjectionSpec, type SpecProjection, type TestDatabase } from '@headspace/testing';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { z } from 'zod';
import { AppModule } from '../app.module';
import { SERVICE, configSchema } from '../config';
import { GroupsProjection } from '../groups/groups.projection';
import { ProjectsProjection } from '../projects/projects.projection';

export const SCHEMA = 'ops_leon';

/** ops-leon as its clients see it, for int specs: a real app on a fresh database and a NATS namespace of its own. */
export interface OpsLeonHarness {
  db: TestDatabase;
  nc: NatsConnection;
  namespace: string;
  app: NestFastifyApplication;
  env: Record<string, string>;
  send<D extends RequestDefinition>(definition: D, body: z.input<D['request']>, options?: SendRequestOptions): Promise<z.output<D['response']>>;
  sendError<D extends RequestDefinition>(definition: D, body: unknown, options?: SendRequestOptions): Promise<HeadspaceError>;
  /** Resolves once the read models handled everything committed so far. */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

export async function startOpsLeon(label: string, env: Record<string, string> = {}): Promise<OpsLeonHarness> {
  const db = await createTestDatabase(label);
  const namespace = harnessNamespace('ol', label);
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  // Triage off unless a spec turns it on: it moves every opened group on from NEW.
  const baseEnv = { DATABASE_URL: db.url, NATS_URL: natsUrl, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, HS_OPS_TRIAGE: 'off', ...env };
  const app = await createServiceApp(AppModule.forRoot(loadConfig(configSchema, baseEnv, SERVICE)), { bufferLogs: false });
  await app.init();
  const nc = await connect({ servers: natsUrl, name: `spec-${namespace}` });
  return {
    db,
    nc,
    namespace,
    app,
    env: baseEnv,
    send: (definition, body, options) => request(nc, definition, body, options),
    sendError: (definition, body, options) => requestFailure(nc, definition, body, options),
    async caughtUp() {
      await app.get(ProjectsProjection).runner.waitUntilCaughtUp();
      await app.get(GroupsProjection).runner.waitUntilCaughtUp();
    },
    async close() {
      await app.close();
      await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
      await nc.close();
      await db.drop();
    },
  };
}

/** A fresh database with ops-leon's schema, and a given/when/then spec of the projection `create` makes on its store. */
export async function opsLeonProjectionSpec<P extends SpecProjection>(label: string, create: (store: EventStore) => P): Promise<{ db: TestDatabase; spec: ProjectionSpec<P> }> {
  const db = await createTestDatabase(label);
  await migrate(db.pool, { schema: SCHEMA, dirs: [join(__dirname, '..', 'migrations')] });
  const store = new EventStore({ pool: db.pool, schema: SCHEMA, registry: new EventRegistry(opsLeonEvents) });
  return { db, spec: ProjectionSpec.for(store, () => create(store)) };
}

/** A report as a client sends it: a fresh event id unless given. */
export const report = (over: Record<string, unknown> = {}) => ({
  eventId: randomBytes(16).toString('hex'),
  type: 'OrderNotFound',
  message: 'order 8812 not found',
  stack: 'Error: order 8812 not found\n    at loadOrder (/srv/shop/src/orders.js:12:11)\n    at handle (/srv/shop/src/routes.js:40:5)',
  source: 'http' as const,
  ...over,
});
