import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTask, createTeam, setSubjectNamespace } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { deleteNamespaceStreams, waitFor } from '@headspace/testing';
import { benchDatabase, percentile, type BenchRow } from './bench-kit';
import { benchNats, launchService, type ServiceProcess } from './service-process';

/**
 * Webhook delivery (issue 29): team-manager and the gateway as real processes, a receiver in this
 * process. Tasks are appended at a fixed 100 events/s; each `task.created` CloudEvent's latency is
 * its arrival at the receiver minus its `time` (the append's commit clock, same host). Then a burst
 * appended as fast as team-manager takes it, to see the drain rate. The floor: a bare HTTP POST of
 * the same body from here to the same receiver, at the same rate.
 */
const TEAMS = Array.from({ length: 10 }, (_, i) => `bench-hooks-${i}`);

export async function benchWebhooks(options: { quick: boolean }): Promise<BenchRow[]> {
  const seconds = options.quick ? 5 : 20;
  const rate = 100;
  const burst = options.quick ? 500 : 2_000;
  const namespace = `bench-wh-${randomBytes(3).toString('hex')}`;
  const db = await benchDatabase('webhooks');
  const nc = await benchNats();
  setSubjectNamespace(namespace);
  const services: ServiceProcess[] = [];
  const arrivals = new Map<string, { at: number; latency: number }>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = Date.now();
      if (req.url === '/hook') {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; time: string };
        if (!arrivals.has(event.id)) arrivals.set(event.id, { at: now, latency: now - Date.parse(event.time) });
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  try {
    const adminToken = `hst_bench_${randomBytes(24).toString('base64url')}`;
    const env = { DATABASE_URL: db.url, HS_NAMESPACE: namespace };
    services.push(await launchService('team-manager', env));
    const gateway = await launchService('gateway', { ...env, HS_ADMIN_TOKEN: adminToken, HS_WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'), HS_WEBHOOK_POLL_MS: '20', HS_WEBHOOK_ALLOW_PRIVATE: 'true' });
    services.push(gateway);
    const res = await fetch(`http://127.0.0.1:${gateway.port}/api/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${receiverUrl}/hook`, eventTypes: ['task.created'], teams: TEAMS }),
    });
    if (res.status !== 201) throw new Error(`creating the subscription: ${res.status} ${await res.text()}`);
    for (const name of TEAMS) await request(nc, createTeam, { name });
    // Ten teams round-robin: one team's task list is one stream, and its appends would contend.
    const append = (i: number, subject: string) => request(nc, createTask, { team: TEAMS[i % TEAMS.length], subject }, { timeoutMs: 30_000 });

    // Steady: 100 appends per second, each started on its tick whatever the last one's answer.
    const steady = rate * seconds;
    const t0 = Date.now();
    const appends: Array<Promise<unknown>> = [];
    for (let i = 0; i < steady; i++) {
      const due = t0 + (i * 1_000) / rate;
      if (due > Date.now()) await sleep(due - Date.now());
      appends.push(append(i, `steady ${i}`));
    }
    await Promise.all(appends);
    const appendedRate = steady / ((Date.now() - t0) / 1_000);
    await waitFor(() => arrivals.size >= steady, { timeoutMs: 120_000, intervalMs: 20, message: 'every steady event delivered' });
    const steadyLatencies = [...arrivals.values()].map((a) => a.latency).sort((a, b) => a - b);
    const steadyRate = steady / ((Math.max(...[...arrivals.values()].map((a) => a.at)) - t0) / 1_000);

    // Floor: the same body POSTed straight to the receiver, 100 per second.
    const body = JSON.stringify({ id: 'floor', time: new Date().toISOString(), data: { subject: 'floor' } });
    const floorLatencies: number[] = [];
    const f0 = Date.now();
    const posts: Array<Promise<void>> = [];
    for (let i = 0; i < steady; i++) {
      const due = f0 + (i * 1_000) / rate;
      if (due > Date.now()) await sleep(due - Date.now());
      const started = performance.now();
      posts.push(fetch(`${receiverUrl}/floor`, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json' }, body }).then(async (r) => {
        await r.arrayBuffer();
        floorLatencies.push(performance.now() - started);
      }));
    }
    await Promise.all(posts);
    floorLatencies.sort((a, b) => a - b);

    // Burst: appended by 8 lanes as fast as team-manager answers; drain rate from first append to last arrival.
    const before = arrivals.size;
    const b0 = Date.now();
    let next = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      for (let i = next++; i < burst; i = next++) await append(i, `burst ${i}`);
    }));
    const appendRate = burst / ((Date.now() - b0) / 1_000);
    await waitFor(() => arrivals.size >= before + burst, { timeoutMs: 300_000, intervalMs: 20, message: 'every burst event delivered' });
    const drainRate = burst / ((Math.max(...[...arrivals.values()].map((a) => a.at)) - b0) / 1_000);

    return [
      { name: `webhooks: append → receiver p50 at ${rate}/s`, value: percentile(steadyLatencies, 50), unit: 'ms', baseline: percentile(floorLatencies, 50), note: 'baseline: bare POST to the same receiver' },
      { name: `webhooks: append → receiver p99 at ${rate}/s`, value: percentile(steadyLatencies, 99), unit: 'ms', baseline: percentile(floorLatencies, 99), note: 'baseline: bare POST to the same receiver' },
      { name: `webhooks: delivered at ${rate}/s offered`, value: steadyRate, unit: 'events/s', baseline: appendedRate, note: 'baseline: the rate team-manager appended them' },
      { name: `webhooks: burst of ${burst} drained`, value: drainRate, unit: 'events/s', baseline: appendRate, note: 'baseline: the append rate of the same burst' },
    ];
  } finally {
    receiver.closeAllConnections();
    receiver.close();
    for (const service of services.reverse()) await service.stop();
    await deleteNamespaceStreams(nc, namespace).finally(() => nc.close());
    await db.drop();
  }
}
