import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { createIngestKey, createOpsProject, ingestException, listGroups, setSubjectNamespace } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { deleteNamespaceStreams } from '@headspace/testing';
import Fastify from 'fastify';
import { benchDatabase, newPool, throughput, type BenchRow } from './bench-kit';
import { benchNats, launchService, type ServiceProcess } from './service-process';

/**
 * Envelope load from a worker thread (its own event loop, like remote SDKs). Every request is one
 * Sentry envelope holding one event with a fresh event id (ops-leon counts an id once). Modes:
 * `closed` — `connections` lanes each sending the next as soon as the last answered, for `ms`;
 * `open` — requests started at `rate` per second whatever the answers (latency at a fixed load);
 * `count` — `total` requests over `connections` lanes, as fast as answered (the storm).
 */
const LOAD_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { url, template, mode, connections, ms, rate, total, idPrefix } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const latencies = [];
const statuses = {};
let n = 0, errors = 0;
const one = () => new Promise((resolve) => {
  const id = (idPrefix + (n++).toString(16)).padStart(32, '0');
  const body = template.replaceAll('$ID', id);
  const started = performance.now();
  const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/x-sentry-envelope', 'content-length': Buffer.byteLength(body) } }, (res) => {
    res.resume();
    res.on('end', () => {
      if (res.statusCode >= 300) errors++;
      statuses[res.statusCode] = (statuses[res.statusCode] || 0) + 1;
      latencies.push(performance.now() - started);
      resolve();
    });
  });
  req.on('error', () => { errors++; resolve(); });
  req.end(body);
});
const t0 = performance.now();
let work;
if (mode === 'open') {
  const count = Math.round((rate * ms) / 1000);
  const pending = [];
  work = new Promise((resolve) => {
    let sent = 0;
    const tick = () => {
      const due = Math.min(count, Math.floor(((performance.now() - t0) * rate) / 1000) + 1);
      while (sent < due) { pending.push(one()); sent++; }
      if (sent < count) setTimeout(tick, 1); else Promise.all(pending).then(resolve);
    };
    tick();
  });
} else {
  const deadline = t0 + ms;
  const more = () => (mode === 'count' ? n < total : performance.now() < deadline);
  const lane = async () => { while (more()) await one(); };
  work = Promise.all(Array.from({ length: connections }, lane));
}
work.then(() => {
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p) => latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)];
  agent.destroy();
  parentPort.postMessage({ rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), errors, count: latencies.length, statuses, seconds });
});
`;

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  count: number;
  statuses: Record<string, number>;
  seconds: number;
}

type LoadSpec = { url: string; template: string; mode: 'closed' | 'open' | 'count'; connections: number; ms?: number; rate?: number; total?: number };

function load(spec: LoadSpec): Promise<Load> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(LOAD_WORKER, { eval: true, workerData: { ms: 0, rate: 0, total: 0, ...spec, idPrefix: randomBytes(4).toString('hex') } });
    worker.once('message', (m: Load) => void worker.terminate().then(() => resolve(m)));
    worker.once('error', reject);
  });
}

/** CPU time (user + system) a process has used so far, from /proc/<pid>/stat. */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** What @sentry/node sends for a thrown error (trimmed): one fingerprint whatever the event id. */
function envelopeTemplate(dsn: string): string {
  const event = {
    event_id: '$ID',
    level: 'error',
    platform: 'node',
    environment: 'bench',
    release: 'bench@1.0.0',
    timestamp: 1_751_000_000.5,
    exception: {
      values: [
        {
          type: 'TypeError',
          value: "Cannot read properties of undefined (reading 'total')",
          mechanism: { type: 'onuncaughtexception', handled: false },
          stacktrace: {
            frames: [
              { filename: 'node:internal/timers', function: 'listOnTimeout', lineno: 581, colno: 17, in_app: false },
              { filename: '/srv/app/src/server.js', abs_path: '/srv/app/src/server.js', function: 'handle', lineno: 12, colno: 5, in_app: true },
              { filename: '/srv/app/src/orders.js', abs_path: '/srv/app/src/orders.js', function: 'totalOf', lineno: 41, colno: 17, in_app: true },
            ],
          },
        },
      ],
    },
    tags: { region: 'eu' },
    sdk: { name: 'sentry.javascript.node', version: '11.12.0' },
  };
  return [JSON.stringify({ event_id: '$ID', dsn, sent_at: '2025-06-27T05:00:00Z' }), '{"type":"event"}', JSON.stringify(event)].join('\n');
}

/**
 * Sentry envelope ingest through the gateway and ops-leon (real processes), beside a bare Fastify
 * route that appends the same event to PostgreSQL (one INSERT) in the same run: throughput at 50
 * connections, latency at a fixed 1,000 events/s, then a storm of one fingerprint that must leave
 * one group with the exact count while the services' RSS stays flat.
 */
export async function benchOpsIngest(options: { quick: boolean }): Promise<BenchRow[]> {
  const ms = options.quick ? 3_000 : 10_000;
  const stormEvents = options.quick ? 10_000 : 100_000;
  const namespace = `bench-ops-${randomBytes(3).toString('hex')}`;
  const db = await benchDatabase('opsingest');
  const pool = newPool(db.url, 10);
  const nc = await benchNats();
  setSubjectNamespace(namespace);
  const services: ServiceProcess[] = [];
  const bare = Fastify();
  try {
    const env = { DATABASE_URL: db.url, HS_NAMESPACE: namespace };
    // HS_BENCH_CPU_PROF=<dir>: V8 CPU profiles of both services, to see where an envelope's time goes.
    const prof = process.env.HS_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.HS_BENCH_CPU_PROF}`] : [];
    services.push(await launchService('ops-leon', { ...env, HS_OPS_RATE_LIMIT_PER_MIN: '0' }, prof));
    services.push(await launchService('gateway', { ...env, HS_ADMIN_TOKEN: `hst_bench_${randomBytes(24).toString('base64url')}`, HS_RATE_LIMIT_ADDRESS_MAX: '100000000' }, prof));
    const [leon, gateway] = services;

    const project = await request(nc, createOpsProject, { project: 'bench-shop', repository: '/tmp/bench-shop', actor: 'bench' });
    const key = await request(nc, createIngestKey, { project: 'bench-shop', actor: 'bench' });
    const dsn = `http://${key.publicKey}@127.0.0.1:${gateway.port}/${project.projectId}`;
    const template = envelopeTemplate(dsn);
    const envelopeUrl = `http://127.0.0.1:${gateway.port}/api/${project.projectId}/envelope/?sentry_key=${key.publicKey}&sentry_version=7`;

    await pool.query('CREATE TABLE bench_raw_events (id bigserial PRIMARY KEY, received_at timestamptz NOT NULL DEFAULT now(), event jsonb NOT NULL)');
    bare.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    bare.post('/raw', async (req) => {
      const lines = (req.body as Buffer).toString('utf8').split('\n');
      await pool.query('INSERT INTO bench_raw_events (event) VALUES ($1)', [lines[2]]);
      return { id: JSON.parse(lines[0]).event_id };
    });
    await bare.listen({ port: 0, host: '127.0.0.1' });
    const bareUrl = `http://127.0.0.1:${(bare.server.address() as AddressInfo).port}/raw`;

    const closed = (url: string) => ({ url, template, mode: 'closed' as const, connections: 50, ms });
    await load({ ...closed(envelopeUrl), ms: 1_000 });
    await load({ ...closed(bareUrl), ms: 1_000 });
    const cpu = () => ({ gateway: cpuMsOf(gateway.child.pid as number), leon: cpuMsOf(leon.child.pid as number) });
    const cpuBefore = cpu();
    const gwMax = await load(closed(envelopeUrl));
    const cpuAfter = cpu();
    const perEvent = (k: 'gateway' | 'leon') => (cpuAfter[k] - cpuBefore[k]) / gwMax.count;
    // ops-leon alone: the same report sent straight over NATS, as the gateway sends it (50 in flight).
    const report = { eventId: '', type: 'TypeError', message: "Cannot read properties of undefined (reading 'total')", level: 'error' as const, frames: [{ function: 'totalOf', filename: '/srv/app/src/orders.js', lineno: 41, inApp: true }], tags: {}, source: 'sentry-envelope' as const };
    const direct = options.quick ? 3_000 : 10_000;
    const directRate = await throughput(direct, 50, (_lane, i) =>
      request(nc, ingestException, { project: project.projectId, publicKey: key.publicKey, report: { ...report, eventId: `d${String(i).padStart(31, '0')}` }, receivedAt: new Date().toISOString() }),
    );
    const bareMax = await load(closed(bareUrl));
    const fixed = (url: string) => ({ url, template, mode: 'open' as const, connections: 200, rate: 1_000, ms });
    const gwFixed = await load(fixed(envelopeUrl));
    const bareFixed = await load(fixed(bareUrl));

    // The storm, in a project of its own: one fingerprint, every event counted once into one group, memory flat.
    const stormProject = await request(nc, createOpsProject, { project: 'bench-storm', repository: '/tmp/bench-storm', actor: 'bench' });
    const stormKey = await request(nc, createIngestKey, { project: 'bench-storm', actor: 'bench' });
    const stormUrl = `http://127.0.0.1:${gateway.port}/api/${stormProject.projectId}/envelope/?sentry_key=${stormKey.publicKey}&sentry_version=7`;
    const rssBefore = { gateway: gateway.rssMb(), leon: leon.rssMb() };
    const peak = { ...rssBefore };
    const sampler = setInterval(() => {
      peak.gateway = Math.max(peak.gateway, gateway.rssMb());
      peak.leon = Math.max(peak.leon, leon.rssMb());
    }, 200);
    const groupsBefore = await request(nc, listGroups, { project: 'bench-storm', limit: 10 });
    const countBefore = groupsBefore.items.reduce((sum, g) => sum + g.count, 0);
    const storm = await load({ url: stormUrl, template, mode: 'count', connections: 50, total: stormEvents });
    const stormStarted = Date.now();
    let groups = groupsBefore;
    for (;;) {
      groups = await request(nc, listGroups, { project: 'bench-storm', limit: 10 });
      const counted = groups.items.reduce((sum, g) => sum + g.count, 0);
      if (counted >= countBefore + storm.count - storm.errors || Date.now() - stormStarted > 120_000) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    clearInterval(sampler);
    const counted = groups.items.reduce((sum, g) => sum + g.count, 0) - countBefore;

    const note = (l: Load) => `p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms${l.errors ? `, ${l.errors} errors ${JSON.stringify(l.statuses)}` : ''}`;
    return [
      { name: 'ops ingest: envelopes through gateway + ops-leon vs bare route appending to PG (50 conn)', value: gwMax.rps, unit: 'events/s', baseline: bareMax.rps, target: 0.5, note: `${note(gwMax)}; bare ${note(bareMax)}` },
      { name: 'ops ingest: ingest-exception straight over NATS to ops-leon (50 in flight)', value: directRate, unit: 'events/s', baseline: bareMax.rps, note: 'no gateway: what ops-leon alone takes' },
      { name: 'ops ingest: CPU per envelope, gateway / ops-leon', value: perEvent('gateway'), unit: 'ms', note: `ops-leon ${perEvent('leon').toFixed(2)} ms per event` },
      { name: 'ops ingest: p99 at 1,000 events/s (open loop), target < 50 ms', value: gwFixed.p99, unit: 'ms', baseline: bareFixed.p99, note: `${gwFixed.rps.toFixed(0)} events/s sent; ${note(gwFixed)}; bare ${note(bareFixed)}` },
      {
        name: `ops ingest storm: ${stormEvents.toLocaleString('en-US')} events of one fingerprint → groups`,
        value: groups.items.length,
        unit: 'groups',
        note: `counted ${counted} of ${storm.count - storm.errors} accepted (${storm.errors} refused) ${counted === storm.count - storm.errors ? 'exact' : 'MISMATCH'}; ${storm.rps.toFixed(0)} events/s, ${note(storm)}`,
      },
      { name: 'ops ingest storm: gateway RSS growth (start → peak), target < 50 MB', value: peak.gateway - rssBefore.gateway, unit: 'MB', note: `${rssBefore.gateway.toFixed(0)} → ${peak.gateway.toFixed(0)} MB` },
      { name: 'ops ingest storm: ops-leon RSS growth (start → peak), target < 50 MB', value: peak.leon - rssBefore.leon, unit: 'MB', note: `${rssBefore.leon.toFixed(0)} → ${peak.leon.toFixed(0)} MB` },
    ];
  } finally {
    await bare.close();
    for (const service of services.reverse()) await service.stop();
    await deleteNamespaceStreams(nc, namespace).finally(() => nc.close());
    await pool.end();
    await db.drop();
  }
}
