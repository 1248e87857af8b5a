import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { stopChild, trackedChildren } from './child-processes';
import { ensureNatsServerBinary } from './nats';
import { freePort, waitFor } from './util';

export interface NatsClusterNode {
  name: string;
  url: string;
  /** Server tags the node carries (`node:<name>` plus the ones asked for), for placement specs. */
  tags: string[];
  running(): boolean;
  stop(): Promise<void>;
  /** Starts the node again with its ports and store dir. */
  start(): Promise<void>;
}

export interface NatsClusterHandle {
  name: string;
  nodes: NatsClusterNode[];
  /** Every node's client URL, comma-separated, for NATS_URL. */
  servers: string;
  /** Resolves once a JetStream meta leader answers API requests through `via` (default: the first running node). */
  waitForMetaLeader(timeoutMs?: number, via?: NatsClusterNode): Promise<void>;
  /** Stops every node and deletes the store dirs. */
  dispose(): Promise<void>;
}

function nodeConfig(opts: { name: string; port: number; clusterPort: number; routes: number[]; storeDir: string; cluster: string; tags: string[] }): string {
  return [
    `server_name: ${JSON.stringify(opts.name)}`,
    `listen: "127.0.0.1:${opts.port}"`,
    `server_tags: ${JSON.stringify(opts.tags)}`,
    `jetstream { store_dir: ${JSON.stringify(opts.storeDir)} }`,
    `cluster {`,
    `  name: ${JSON.stringify(opts.cluster)}`,
    `  listen: "127.0.0.1:${opts.clusterPort}"`,
    `  routes: ${JSON.stringify(opts.routes.map((p) => `nats://127.0.0.1:${p}`))}`,
    `}`,
    '',
  ].join('\n');
}

/**
 * A throwaway JetStream cluster of `size` nats-server processes on 127.0.0.1 (free client and route
 * ports, a store dir each under one temp folder), for specs of replicated streams and node loss.
 * Resolves once a meta leader is elected.
 */
export async function startNatsCluster(opts: { size?: number; name?: string; tags?: (index: number) => string[]; timeoutMs?: number } = {}): Promise<NatsClusterHandle> {
  const bin = await ensureNatsServerBinary({ allowInstall: false });
  const size = opts.size ?? 3;
  const cluster = opts.name ?? 'hs-test';
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const root = mkdtempSync(join(tmpdir(), 'hs-nats-cluster-'));
  const ports = await Promise.all(Array.from({ length: size }, () => freePort()));
  const clusterPorts = await Promise.all(Array.from({ length: size }, () => freePort()));

  const nodes = ports.map((port, i): NatsClusterNode => {
    const name = `n${i + 1}`;
    const tags = [`node:${name}`, ...(opts.tags?.(i) ?? [])];
    const dir = join(root, name);
    mkdirSync(join(dir, 'store'), { recursive: true });
    const configFile = join(dir, 'nats.conf');
    const routes = clusterPorts.filter((_, j) => j !== i);
    writeFileSync(configFile, nodeConfig({ name, port, clusterPort: clusterPorts[i], routes, storeDir: join(dir, 'store'), cluster, tags }));
    let child: ChildProcess | undefined;
    let exitInfo: string | undefined;
    const node: NatsClusterNode = {
      name,
      url: `nats://127.0.0.1:${port}`,
      tags,
      running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
      async start() {
        if (node.running()) return;
        exitInfo = undefined;
        let stderr = '';
        const proc = spawn(bin, ['-c', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
        trackedChildren.add(proc);
        proc.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
        proc.once('exit', (code, signal) => {
          trackedChildren.delete(proc);
          exitInfo = `code ${code ?? signal}; ${stderr.trim().split('\n').slice(-3).join(' | ')}`;
        });
        proc.once('error', (error) => (exitInfo = error.message));
        child = proc;
        await waitFor(
          `nats-server ${name} at 127.0.0.1:${port}`,
          async () => {
            if (exitInfo !== undefined) throw new Error(`nats-server ${name} exited: ${exitInfo}`);
            const nc = await connect({ servers: node.url, reconnect: false, timeout: 1_000 });
            await nc.close();
            return true;
          },
          { timeoutMs },
        );
      },
      async stop() {
        if (child) await stopChild(child);
        child = undefined;
      },
    };
    return node;
  });

  const handle: NatsClusterHandle = {
    name: cluster,
    nodes,
    servers: nodes.map((n) => n.url).join(','),
    async waitForMetaLeader(waitMs = timeoutMs, via) {
      await waitFor(
        `a JetStream meta leader in cluster ${cluster}`,
        async () => {
          const node = via ?? nodes.find((n) => n.running());
          if (!node) throw new Error('no node is running');
          const nc = await connect({ servers: node.url, reconnect: false, timeout: 1_000 });
          try {
            // $JS.API.INFO answers only once the meta group has a leader.
            await (await jetstreamManager(nc, { timeout: 2_000 })).getAccountInfo();
            return true;
          } finally {
            await nc.close().catch(() => undefined);
          }
        },
        { timeoutMs: waitMs, intervalMs: 250 },
      );
    },
    async dispose() {
      await Promise.all(nodes.map((n) => n.stop()));
      rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(nodes.map((n) => n.start()));
    await handle.waitForMetaLeader();
  } catch (error) {
    await handle.dispose();
    throw error;
  }
  return handle;
}
