import { randomBytes } from 'node:crypto';
import { createIngestKey, createOpsProject, getGroup, listGroups, type GroupSummary } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { deleteNamespaceStreams } from '@headspace/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startGatewayHarness, type GatewayHarness } from '../../testing/gateway-harness';
// The specs boot the real ops-leon beside the gateway; apps never import each other outside tests.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as OpsLeonModule } from '../../../../ops-leon/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as OPS_LEON, configSchema as opsLeonConfig } from '../../../../ops-leon/src/config';

export interface IngestHarness extends GatewayHarness {
  nc: NatsConnection;
  /** The gateway listening on a real port (for SDKs and Python apps in other processes). */
  baseUrl: string;
  /** A project with one ingest key. */
  project: (name: string) => Promise<{ project: string; projectId: string; publicKey: string; dsn: string; plainUrl: string }>;
  groups: (project: string) => Promise<GroupSummary[]>;
  group: (groupId: string) => ReturnType<typeof fetchGroup>;
  /** Rows of ops-leon's event log: what a refused request must not change. */
  opsEventCount: () => Promise<number>;
  /** Polls `probe` until it returns a value (for events arriving from other processes). */
  eventually: <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs?: number) => Promise<T>;
}

let natsForGroups: NatsConnection | undefined;
const fetchGroup = (groupId: string) => request(natsForGroups as NatsConnection, getGroup, { groupId });

/** The gateway (listening) and ops-leon in-process, on one fresh database and NATS namespace. */
export async function startIngestHarness(label: string, env: Record<string, string> = {}): Promise<IngestHarness> {
  const namespace = `gwi-${randomBytes(4).toString('hex')}`;
  const h = await startGatewayHarness({ label, teamManager: false, env: { HS_NAMESPACE: namespace, ...env } });
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  // Triage off unless a spec turns it on: it moves every opened group on from NEW.
  const leonEnv = { DATABASE_URL: h.db.url, NATS_URL: natsUrl, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, HS_OPS_TRIAGE: 'off', ...env };
  const leon: NestFastifyApplication = await createServiceApp(OpsLeonModule.forRoot(loadConfig(opsLeonConfig, leonEnv, OPS_LEON)), { bufferLogs: false });
  await leon.init();
  await h.http().listen({ port: 0, host: '127.0.0.1' });
  const address = h.http().server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const nc = await connect({ servers: natsUrl });
  natsForGroups = nc;
  return {
    ...h,
    nc,
    baseUrl,
    project: async (name) => {
      const created = await request(nc, createOpsProject, { project: name, repository: `/tmp/${name}`, actor: 'spec' });
      const key = await request(nc, createIngestKey, { project: name, actor: 'spec' });
      const host = new URL(baseUrl).host;
      return {
        project: name,
        projectId: created.projectId,
        publicKey: key.publicKey,
        dsn: `http://${key.publicKey}@${host}/${created.projectId}`,
        plainUrl: `${baseUrl}/api/v1/ops/projects/${name}/exceptions`,
      };
    },
    groups: async (project) => (await request(nc, listGroups, { project, limit: 100 })).items,
    group: fetchGroup,
    opsEventCount: async () => Number((await h.db.pool.query(`SELECT count(*)::int AS n FROM ops_leon.events`)).rows[0].n),
    eventually: async (what, probe, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await probe().catch(() => undefined);
        if (value !== undefined) return value;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    close: async (keepDatabase = false) => {
      await leon.close();
      await deleteNamespaceStreams(nc, namespace).finally(() => nc.close());
      await h.close(keepDatabase);
    },
  };
}
