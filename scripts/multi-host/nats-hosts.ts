import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { ensureNatsServerBinary } from '../../libs/testing/src/infra/nats';
import { waitFor } from '../../libs/testing/src/infra/util';
import { hosts, spawnOn, type Host } from './hosts';

const CLIENT_PORT = 4222;
const ROUTE_PORT = 6222;

export interface NatsNode {
  host: Host;
  url: string;
  start(): Promise<void>;
  /** Its process, while it runs (a host kill takes it with everything else). */
  child?: ChildProcess;
}

/** Every node's client URL, for the services' NATS_URL. */
export const natsServers = hosts.map((h) => `nats://${h.address}:${CLIENT_PORT}`).join(',');

function config(host: Host, storeDir: string): string {
  const routes = hosts.filter((h) => h !== host).map((h) => `nats://${h.address}:${ROUTE_PORT}`);
  return [
    `server_name: "n${host.index}"`,
    `listen: "${host.address}:${CLIENT_PORT}"`,
    `jetstream { store_dir: ${JSON.stringify(storeDir)} }`,
    `cluster {`,
    `  name: "hs-multi-host"`,
    `  listen: "${host.address}:${ROUTE_PORT}"`,
    `  routes: ${JSON.stringify(routes)}`,
    `}`,
    '',
  ].join('\n');
}

/** One nats-server per host, clustered over the bridge; a node started again keeps its store (it rejoins with its data). */
export async function natsNodes(dir: string): Promise<NatsNode[]> {
  const bin = await ensureNatsServerBinary({ allowInstall: false });
  return hosts.map((host) => {
    const nodeDir = join(dir, `nats-n${host.index}`);
    mkdirSync(join(nodeDir, 'store'), { recursive: true });
    const file = join(nodeDir, 'nats.conf');
    writeFileSync(file, config(host, join(nodeDir, 'store')));
    const node: NatsNode = {
      host,
      url: `nats://${host.address}:${CLIENT_PORT}`,
      async start() {
        let log = '';
        const child = spawnOn(host, bin, ['-c', file]);
        child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-2_000)));
        node.child = child;
        await waitFor(
          `nats-server n${host.index} on ${host.namespace}`,
          async () => {
            if (child.exitCode !== null || child.signalCode !== null) throw new Error(`nats-server exited: ${log}`);
            const nc = await connect({ servers: node.url, reconnect: false, timeout: 1_000 });
            await nc.close();
            return true;
          },
          { timeoutMs: 20_000, intervalMs: 150 },
        );
      },
    };
    return node;
  });
}

/** Resolves once the cluster's JetStream answers through `node` (a meta leader is elected). */
export async function waitForMetaLeader(node: NatsNode, timeoutMs = 30_000): Promise<void> {
  await waitFor(
    'a JetStream meta leader',
    async () => {
      const nc = await connect({ servers: node.url, reconnect: false, timeout: 1_000 });
      try {
        await (await jetstreamManager(nc, { timeout: 2_000 })).getAccountInfo();
        return true;
      } finally {
        await nc.close().catch(() => undefined);
      }
    },
    { timeoutMs, intervalMs: 250 },
  );
}
