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
import { SERVICE, configSchema } from '../config';

/**
 * The team-manager as its clients see it, for int/e2e specs: a real app on a fresh database and a
 * NATS namespace of its own, driven through its command/query subjects.
 */
export interface TeamManagerHarness {
  db: TestDatabase;
  nc: NatsConnection;
  namespace: string;
  apps: NestFastifyApplication[];
  /** Sends a command or query and returns its result (throws the HeadspaceError on failure). */
  send<D extends RequestDefinition>(definition: D, body: z.input<D['request']>, options?: SendRequestOptions): Promise<z.output<D['response']>>;
  /** Sends and returns the HeadspaceError it fails with (fails the test when it succeeds). */
  sendError<D extends RequestDefinition>(definition: D, body: unknown, options?: SendRequestOptions): Promise<HeadspaceError>;
  /** Boots one more instance on the same database and namespace (replica tests). */
  addInstance(env?: Record<string, string>): Promise<NestFastifyApplication>;
  close(): Promise<void>;
}

export async function startTeamManager(label: string, env: Record<string, string> = {}): Promise<TeamManagerHarness> {
  const db = await createTestDatabase(label);
  const namespace = harnessNamespace('tm', label);
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const apps: NestFastifyApplication[] = [];
  const addInstance = async (extra: Record<string, string> = {}) => {
    const config = loadConfig(
      configSchema,
      { DATABASE_URL: db.url, NATS_URL: natsUrl, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, ...env, ...extra },
      SERVICE,
    );
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
    send: (definition, body, options) => request(nc, definition, body, options),
    sendError: (definition, body, options) => requestFailure(nc, definition, body, options),
    addInstance,
    async close() {
      for (const app of apps.reverse()) await app.close();
      await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
      await nc.close();
      await db.drop();
    },
  };
}
