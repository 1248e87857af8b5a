import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { getTeam, listTasks, requestApproval } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { deleteNamespaceStreams } from '@headspace/testing';
import { connect } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import Fastify from 'fastify';
import { benchDatabase, printTable, type BenchRow } from './bench-kit';
// The bench boots the services in-process, as the e2e specs do.
import { AppModule as GatewayModule } from '../apps/gateway/src/app.module';
import { SERVICE as GATEWAY, configSchema as gatewayConfig } from '../apps/gateway/src/config';
import { AppModule as TeamManagerModule } from '../apps/team-manager/src/app.module';
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../apps/team-manager/src/config';

/**
 * The load generator runs in a worker thread (its own event loop, like remote clients): `connections`
 * keep-alive sockets, each sending its next request as soon as the last one answered, for `ms`.
 */
const LOAD_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { url, method, headers, body, connections, ms } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const latencies = [];
let errors = 0, n = 0;
const statuses = {};
const deadline = performance.now() + ms;
const one = () => new Promise((resolve) => {
  const started = performance.now();
  const payload = body === undefined ? undefined : body.replace('$N', String(n++) + '-' + Math.random().toString(36).slice(2));
  const req = http.request(url, { method, agent, headers: payload ? { ...headers, 'content-length': Buffer.byteLength(payload) } : headers }, (res) => {
    res.resume();
    res.on('end', () => {
      if (res.statusCode >= 400) errors++;
      statuses[res.statusCode] = (statuses[res.statusCode] || 0) + 1;
      latencies.push(performance.now() - started);
      resolve();
    });
  });
  req.on('error', () => { errors++; resolve(); });
  req.end(payload);
});
const lane = async () => { while (performance.now() < deadline) await one(); };
const t0 = performance.now();
Promise.all(Array.from({ length: connections }, lane)).then(() => {
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const p99 = latencies[Math.min(latencies.length - 1, Math.ceil(0.99 * latencies.length) - 1)];
  agent.destroy();
  parentPort.postMessage({ rps: latencies.length / seconds, p99, errors, count: latencies.length, statuses });
});
`;

interface Load {
  rps: number;
  p99: number;
  errors: number;
  count: number;
  statuses: Record<string, number>;
}

function load(options: { url: string; method: string; headers: Record<string, string>; body?: string; connections: number; ms: number }): Promise<Load> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(LOAD_WORKER, { eval: true, workerData: options });
    worker.once('message', (m: Load) => void worker.terminate().then(() => resolve(m)));
    worker.once('error', reject);
  });
}

/**
 * Requests/s and p99 at 50 connections for a read (list tasks) and a write (create a task) through
 * the gateway (auth, rate limit, parsing, NATS, pagination), beside bare Fastify routes measured in
 * the same run: one that answers a constant (the HTTP ceiling) and one that sends the same NATS
 * request with no gateway logic (the gateway's own overhead). Target: reads ≥ 40% of bare.
 */
export async function runGatewayHttpBench(options: { quick: boolean }): Promise<void> {
  const ms = options.quick ? 3_000 : 10_000;
  const connections = 50;
  const namespace = `bench-http-${randomBytes(3).toString('hex')}`;
  const adminToken = `hst_bench_${randomBytes(24).toString('base64url')}`;
  const db = await benchDatabase('gwhttp');
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const env = { DATABASE_URL: db.url, NATS_URL: natsUrl, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, HS_ADMIN_TOKEN: adminToken, HS_RATE_LIMIT_MAX: '100000000', HS_RATE_LIMIT_ADDRESS_MAX: '100000000', HS_RATE_LIMIT_SPEND_MAX: '100000000' };
  const apps: NestFastifyApplication[] = [];
  const nc = await connect({ servers: natsUrl });
  const bare = Fastify();
  try {
    const tm = await createServiceApp(TeamManagerModule.forRoot(loadConfig(teamManagerConfig, env, TEAM_MANAGER)), { bufferLogs: false });
    await tm.init();
    apps.push(tm);
    const gateway = await createServiceApp(GatewayModule.forRoot(loadConfig(gatewayConfig, env, GATEWAY)), { bufferLogs: false });
    apps.push(gateway);
    await gateway.listen(0, '127.0.0.1');
    const gw = `http://127.0.0.1:${(gateway.getHttpAdapter().getInstance().server.address() as AddressInfo).port}`;

    bare.get('/constant', async () => ({ ok: true }));
    bare.get('/team', async () => request(nc, getTeam, { name: 'bench' }));
    bare.get('/tasks', async () => request(nc, listTasks, { team: 'bench', limit: 1_000 }));
    bare.post('/approvals', async (req) => request(nc, requestApproval, { ...(req.body as object), team: 'bench' } as never));
    await bare.listen({ port: 0, host: '127.0.0.1' });
    const raw = `http://127.0.0.1:${(bare.server.address() as AddressInfo).port}`;

    const auth = { authorization: `Bearer ${adminToken}` };
    const json = { 'content-type': 'application/json' };
    const created = await fetch(`${gw}/api/v1/teams`, { method: 'POST', headers: { ...auth, ...json }, body: JSON.stringify({ name: 'bench' }) });
    if (created.status !== 201) throw new Error(`bench team not created: ${created.status}`);
    for (let i = 0; i < 50; i++) {
      await fetch(`${gw}/api/v1/teams/bench/tasks`, { method: 'POST', headers: { ...auth, ...json }, body: JSON.stringify({ subject: `seed ${i}` }) });
    }

    const read = { method: 'GET', connections, ms };
    // Each approval is its own stream: the write measures the path, not contention on one stream.
    const write = { method: 'POST', connections, ms, body: '{"kind":"plan-approval","requester":"bench","summary":"bench $N","timeoutMs":3600000}' };
    const run = async (url: string, spec: typeof read | typeof write, headers: Record<string, string>) => {
      await load({ ...spec, url, headers, ms: 1_000 });
      return load({ ...spec, url, headers });
    };
    const constant = await run(`${raw}/constant`, read, {});
    const gwTeam = await run(`${gw}/api/v1/teams/bench`, read, auth);
    const rawTeam = await run(`${raw}/team`, read, {});
    const gwRead = await run(`${gw}/api/v1/teams/bench/tasks?limit=20`, read, auth);
    const rawRead = await run(`${raw}/tasks`, read, {});
    const gwWrite = await run(`${gw}/api/v1/teams/bench/approvals`, write, { ...auth, ...json });
    const rawWrite = await run(`${raw}/approvals`, write, json);

    const note = (l: Load) => `p99 ${l.p99.toFixed(1)} ms${l.errors ? `, ${l.errors} errors ${JSON.stringify(l.statuses)}` : ''}`;
    const rows: BenchRow[] = [
      { name: 'bare Fastify constant route (50 conn)', value: constant.rps, unit: 'req/s', note: note(constant) },
      { name: 'gateway read: get team vs bare NATS query route', value: gwTeam.rps, unit: 'req/s', baseline: rawTeam.rps, target: 0.4, note: `${note(gwTeam)}; bare ${note(rawTeam)}` },
      { name: 'gateway read: get team vs bare constant route', value: gwTeam.rps, unit: 'req/s', baseline: constant.rps, note: note(gwTeam) },
      { name: 'gateway read: list tasks (page of 20 of 50) vs bare NATS query route', value: gwRead.rps, unit: 'req/s', baseline: rawRead.rps, target: 0.4, note: `${note(gwRead)}; bare ${note(rawRead)}` },
      { name: 'gateway write: request approval vs bare NATS command route', value: gwWrite.rps, unit: 'req/s', baseline: rawWrite.rps, note: `${note(gwWrite)}; bare ${note(rawWrite)}` },
    ];
    printTable(rows);
  } finally {
    await bare.close();
    for (const app of apps.reverse()) await app.close();
    await deleteNamespaceStreams(nc, namespace).finally(() => nc.close());
    await db.drop();
  }
}
