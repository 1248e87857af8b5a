import { randomBytes, randomUUID } from 'node:crypto';
import { createTeam, namespacedStreamName, setSubjectNamespace } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { deleteNamespaceStreams, waitFor } from '@headspace/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Client, type Pool } from 'pg';
import { benchDatabase, percentile, type BenchRow } from './bench-kit';
import { benchNats, launchService, type ServiceProcess } from './service-process';

const SERVICES = ['gateway', 'team-manager', 'orchestrator', 'cost-governor', 'ops-leon'];

/**
 * The five services as real processes (compiled, as `npm start` runs them) on a fresh database and
 * their own NATS namespace: idle RSS of each, then create-team commands at a fixed rate from a NATS
 * client, timing each from request to the orchestrator's projection row (seen through LISTEN/NOTIFY
 * on a trigger, so no polling delay is measured), and the services' peak RSS under that load.
 */
export async function benchSlice(options: { rate: number; seconds: number }): Promise<BenchRow[]> {
  const db = await benchDatabase('slice');
  const namespace = `bench-${randomBytes(3).toString('hex')}`;
  const services: ServiceProcess[] = [];
  const listener = new Client({ connectionString: db.url });
  const nc = await benchNats();
  setSubjectNamespace(namespace);
  try {
    const started = await Promise.allSettled(SERVICES.map((name) => launchService(name, { DATABASE_URL: db.url, HS_NAMESPACE: namespace })));
    for (const result of started) if (result.status === 'fulfilled') services.push(result.value);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    await db.pool.query(`
      CREATE FUNCTION orchestrator.bench_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_notify('bench_projected', NEW.name); RETURN NEW; END $$;
      CREATE TRIGGER bench_notify AFTER INSERT ON orchestrator.team_directory FOR EACH ROW EXECUTE FUNCTION orchestrator.bench_notify();`);
    await listener.connect();
    await listener.query('LISTEN bench_projected');
    const projected = new Map<string, number>();
    listener.on('notification', (n) => projected.set(n.payload ?? '', performance.now()));

    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const idle = services.map((s) => ({ name: s.name, rss: s.rssMb() }));

    // Warm-up, then the measured run at a fixed arrival rate (open loop: a slow reply does not slow the sender).
    await send(nc, 'warm', options.rate * 2, options.rate); // 2 s warm-up (JIT, pools, prepared statements)
    const sentAt = new Map<string, number>();
    let peak = new Map(services.map((s) => [s.name, 0]));
    const sampler = setInterval(() => {
      peak = new Map(services.map((s) => [s.name, Math.max(peak.get(s.name) ?? 0, s.rssMb())]));
    }, 250);
    const total = options.rate * options.seconds;
    const wallSent = new Map<string, number>();
    const errors = await send(nc, 'team', total, options.rate, (name) => {
      sentAt.set(name, performance.now());
      wallSent.set(name, Date.now());
    });
    await waitFor(() => [...sentAt.keys()].every((name) => projected.has(name)) || undefined, { timeoutMs: 30_000, message: 'all projected' }).catch(() => undefined);
    clearInterval(sampler);

    const latencies = [...sentAt].filter(([name]) => projected.has(name)).map(([name, t]) => projected.get(name)! - t).sort((a, b) => a - b);
    if (process.env.HS_BENCH_DEBUG) {
      const t0 = Math.min(...sentAt.values());
      const slow = [...sentAt].filter(([n]) => projected.has(n) && projected.get(n)! - sentAt.get(n)! > 50).map(([n, t]) => `${Math.round(t - t0)}:${Math.round(projected.get(n)! - t)}`);
      console.error(`slow (sent at ms : latency ms): ${slow.join(' ')}`);
      const { rows } = await db.pool.query(`SELECT stream_id, (extract(epoch FROM recorded_at) * 1000)::float8 AS at FROM team_manager.events`);
      const appendLag = rows
        .map((r) => ({ name: (r.stream_id as string).slice(5), at: r.at as number }))
        .filter((r) => wallSent.has(r.name))
        .map((r) => Math.round(r.at - wallSent.get(r.name)!))
        .sort((a, b) => a - b);
      console.error(`request → append begins: p50 ${percentile(appendLag, 50)} p99 ${percentile(appendLag, 99)} max ${appendLag[appendLag.length - 1]}`);
      await printStages(nc, db.pool, wallSent, projected);
    }
    const rows: BenchRow[] = [
      { name: `command → projection p50 (${options.rate}/s, ${total} commands)`, value: percentile(latencies, 50), unit: 'ms', note: `${latencies.length}/${total} projected, ${errors} errors` },
      { name: `command → projection p99 (${options.rate}/s)`, value: percentile(latencies, 99), unit: 'ms', note: 'target < 50 ms' },
      { name: 'command → projection max', value: latencies[latencies.length - 1] ?? NaN, unit: 'ms' },
    ];
    for (const { name, rss } of idle) rows.push({ name: `${name} idle RSS`, value: rss, unit: 'MB', note: `target < 150 MB; under load peak ${peak.get(name)!.toFixed(0)} MB (target < 300 MB)` });
    return rows;
  } finally {
    setSubjectNamespace('');
    await listener.end().catch(() => undefined);
    await Promise.all(services.map((s) => s.stop()));
    await deleteNamespaceStreams(nc, namespace);
    await nc.close();
    await db.drop();
  }
}

/**
 * Debug only: where the slow commands spent their time — request → append transaction began
 * (recorded_at), → stored in JetStream (the stream's timestamp of the relayed message), → projected.
 */
async function printStages(nc: NatsConnection, pool: Pool, wallSent: Map<string, number>, projected: Map<string, number>): Promise<void> {
  const toWall = Date.now() - performance.now();
  const { rows } = await pool.query<{ event_id: string; stream_id: string; at: number }>(
    `SELECT event_id, stream_id, (extract(epoch FROM recorded_at) * 1000)::float8 AS at FROM team_manager.events`,
  );
  const byEvent = new Map(rows.map((r) => [r.event_id, { name: r.stream_id.slice(5), at: r.at }]));
  const jsm = await jetstreamManager(nc);
  const stream = namespacedStreamName('HS_EVT_TEAM_MANAGER');
  const { state } = await jsm.streams.info(stream);
  const lines: string[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
    const msg = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    const event = msg && byEvent.get(msg.header.get('Nats-Msg-Id'));
    if (!msg || !event || !wallSent.has(event.name) || !projected.has(event.name)) continue;
    const sent = wallSent.get(event.name)!;
    const done = projected.get(event.name)! + toWall;
    if (done - sent <= 50) continue;
    const stored = msg.time.getTime();
    lines.push(`${Math.round(sent % 100_000)}: append +${Math.round(event.at - sent)} stored +${Math.round(stored - event.at)} projected +${Math.round(done - stored)}`);
  }
  console.error(`slow commands (wall ms mod 100 s: request → append began, → in JetStream, → projected)\n  ${lines.join('\n  ')}`);
}

async function send(nc: Awaited<ReturnType<typeof connect>>, prefix: string, count: number, rate: number, onSend?: (name: string) => void): Promise<number> {
  const started = performance.now();
  const pending: Promise<unknown>[] = [];
  let errors = 0;
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const name = `${prefix}-${i}-${randomUUID().slice(0, 8)}`;
    onSend?.(name);
    pending.push(request(nc, createTeam, { name }, { timeoutMs: 10_000 }).catch(() => errors++));
  }
  await Promise.all(pending);
  return errors;
}
