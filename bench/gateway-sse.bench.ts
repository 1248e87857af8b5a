import { randomBytes, randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { eventSubject, setSubjectNamespace } from '@headspace/contracts';
import { encodeEnvelope, ensureStream, eventStreamFor } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { deleteNamespaceStreams } from '@headspace/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { benchDatabase, percentile, printTable, type BenchRow } from './bench-kit';
// The bench boots the gateway in-process, as the e2e specs do.
import { AppModule as GatewayModule } from '../apps/gateway/src/app.module';
import { SERVICE as GATEWAY, configSchema as gatewayConfig } from '../apps/gateway/src/config';
import { StreamHub } from '../apps/gateway/src/stream/stream-hub';

/** Absolute wall-clock milliseconds with sub-millisecond precision, comparable across threads. */
const now = () => performance.timeOrigin + performance.now();

/**
 * The SSE clients live in a worker thread (their own event loop, as remote browsers would be): each
 * opens `GET /api/v1/stream`, parses SSE, and records receive time − publish time of every event.
 */
const CLIENTS_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { url, token, clients, expected } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: clients + 10 });
const latencies = [];
let connected = 0, received = 0, closed = 0;
const now = () => performance.timeOrigin + performance.now();
for (let i = 0; i < clients; i++) {
  const req = http.request(url, { agent, headers: { accept: 'text/event-stream', authorization: 'Bearer ' + token } }, (res) => {
    if (res.statusCode !== 200) { parentPort.postMessage({ error: 'status ' + res.statusCode }); return; }
    connected++;
    if (connected === clients) parentPort.postMessage({ connected });
    res.setEncoding('utf8');
    let buf = '';
    res.on('data', (chunk) => {
      const t = now();
      buf += chunk;
      let end;
      while ((end = buf.indexOf('\\n\\n')) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        // Only the publish time is needed: read it without parsing the whole payload (client CPU is not what is measured).
        const at = block.indexOf('"sentAt":');
        if (at < 0) continue;
        if (block.includes('"warm":true')) continue;
        latencies.push(t - parseFloat(block.slice(at + 9)));
        if (++received === expected * clients) parentPort.postMessage({ done: true, latencies, received, closed });
      }
    });
    res.on('close', () => closed++);
  });
  req.on('error', (e) => parentPort.postMessage({ error: String(e) }));
  req.end();
}
parentPort.on('message', (m) => { if (m === 'report') parentPort.postMessage({ done: true, latencies, received, closed }); });
`;

interface WorkerReport {
  done?: boolean;
  connected?: number;
  error?: string;
  latencies?: number[];
  received?: number;
  closed?: number;
}

/**
 * SSE delivery latency through the gateway: `clients` SSE connections, events published into the
 * team-manager's JetStream stream at `rate`/s (as its relay does), latency from publish to the moment
 * a client has read the event off its socket. Target p99 < 100 ms at 200 clients and 100 events/s.
 */
export async function runGatewaySseBench(options: { quick: boolean }): Promise<void> {
  const clients = 200;
  const rate = 100;
  const seconds = options.quick ? 5 : 20;
  const total = rate * seconds;
  const namespace = `bench-sse-${randomBytes(3).toString('hex')}`;
  const adminToken = randomBytes(24).toString('hex');
  setSubjectNamespace(namespace);
  const db = await benchDatabase('sse');
  const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  let gateway: NestFastifyApplication | undefined;
  let worker: Worker | undefined;
  try {
    await ensureStream(await jetstreamManager(nc), eventStreamFor('team-manager'));
    const env = { DATABASE_URL: db.url, NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, HS_ADMIN_TOKEN: adminToken, HS_RATE_LIMIT_MAX: '100000', HS_RATE_LIMIT_ADDRESS_MAX: '100000' };
    // Every bench client streams with one token from one address: lift the per-token stream cap.
    process.env.HS_SSE_MAX_STREAMS_PER_TOKEN = String(clients + 10);
    gateway = await createServiceApp(GatewayModule.forRoot(loadConfig(gatewayConfig, env, GATEWAY)), { bufferLogs: false });
    await gateway.listen(0, '127.0.0.1');
    const url = `${(await gateway.getUrl()).replace('[::1]', '127.0.0.1')}/api/v1/stream`;
    const hub = gateway.get(StreamHub);

    worker = new Worker(CLIENTS_WORKER, { eval: true, workerData: { url, token: adminToken, clients, expected: total } });
    const messages: WorkerReport[] = [];
    let wake: (() => void) | undefined;
    worker.on('message', (m: WorkerReport) => {
      messages.push(m);
      wake?.();
    });
    const waitMessage = async (pred: (m: WorkerReport) => boolean, timeoutMs: number): Promise<WorkerReport | undefined> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const error = messages.find((m) => m.error);
        if (error) throw new Error(`SSE client failed: ${error.error}`);
        const found = messages.find(pred);
        if (found || Date.now() > deadline) return found;
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 100);
        });
      }
    };
    await waitMessage((m) => m.connected === clients, 30_000);
    while (hub.stats.clients < clients) await new Promise((resolve) => setTimeout(resolve, 20));

    // Open loop at a fixed rate: a slow delivery does not slow the publisher. The first `warm`
    // events (2 s) warm up JIT, sockets and the consumer and are not measured.
    const js = jetstream(nc);
    const subject = eventSubject('team-manager', 'task.heartbeat');
    const warm = rate * 2;
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const started = now();
    const acks: Array<Promise<unknown>> = [];
    for (let i = -warm; i < total; i++) {
      const due = started + ((i + warm) * 1000) / rate;
      const wait = due - now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      const at = new Date().toISOString();
      const body = encodeEnvelope({
        eventId: randomUUID(),
        type: 'task.heartbeat',
        streamId: 'task-bench.t1',
        streamVersion: String(i + warm + 1),
        globalPosition: String(i + warm + 1),
        schemaVersion: 1,
        data: { team: 'bench', taskId: 't1', owner: 'con', leaseExpiresAt: at, at, sentAt: now(), ...(i < 0 ? { warm: true } : {}) },
        metadata: {},
        recordedAt: at,
      });
      acks.push(js.publish(subject, body));
    }
    await Promise.all(acks);
    const publishSeconds = (now() - started) / 1000 - warm / rate;
    let report = await waitMessage((m) => m.done === true, 30_000);
    if (!report) {
      worker.postMessage('report');
      report = await waitMessage((m) => m.done === true, 5_000);
    }
    const latencies = (report?.latencies ?? []).sort((a, b) => a - b);
    const rows: BenchRow[] = [
      { name: `sse clients connected`, value: clients, unit: 'clients' },
      { name: `events published (${rate}/s target)`, value: total / publishSeconds, unit: 'events/s' },
      { name: 'deliveries (events × clients)', value: report?.received ?? 0, unit: 'msgs', note: `expected ${total * clients}` },
      { name: 'sse delivery latency p50', value: percentile(latencies, 50), unit: 'ms' },
      { name: 'sse delivery latency p99', value: percentile(latencies, 99), unit: 'ms', note: percentile(latencies, 99) < 100 ? 'target < 100 ms: ok' : 'target < 100 ms: MISSED' },
      { name: 'sse delivery latency max', value: latencies[latencies.length - 1] ?? NaN, unit: 'ms' },
      { name: 'fan-out cost per event (200 clients)', value: Number(hub.stats.fanoutNs) / 1e6 / Math.max(1, hub.stats.events), unit: 'ms' },
      { name: 'gateway event-loop delay p99', value: loopDelay.percentile(99) / 1e6, unit: 'ms' },
      { name: 'sse clients dropped', value: hub.stats.dropped, unit: 'clients' },
      { name: 'gateway rss', value: process.memoryUsage().rss / 1024 / 1024, unit: 'MB', note: 'gateway + publisher process (clients in a worker thread)' },
    ];
    printTable(rows);
  } finally {
    delete process.env.HS_SSE_MAX_STREAMS_PER_TOKEN;
    await worker?.terminate();
    await gateway?.close();
    await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
    await nc.close();
    await db.drop().catch(() => undefined);
  }
}

if (require.main === module) {
  runGatewaySseBench({ quick: process.argv.includes('--quick') }).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
