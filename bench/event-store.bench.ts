import { randomUUID } from 'node:crypto';
import { EventStore, migrate, PgClient } from '@headspace/event-store';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { alternate, benchDatabase, throughput, type BenchRow } from './bench-kit';

const payload = { title: 'Add auth migration', persona: 'con', estimate: 3, tags: ['db', 'auth'] };

/** Appends vs raw INSERTs on the same server, and processor replay vs a raw ordered scan. */
export async function benchEventStore(options: { quick: boolean; replayEvents: number }): Promise<BenchRow[]> {
  const db = await benchDatabase('es');
  const schema = 'bench';
  const pool = db.newPool({ max: 10, Client: PgClient });
  try {
    await migrate(pool, { schema });
    // The raw baseline writes the same rows into a table of the same shape and indexes as the log
    // (LIKE … INCLUDING ALL: identity, defaults, unique and order indexes; not the append-only trigger),
    // so the ratio measures what the event store adds: version compare-and-set, idempotency, the function call.
    await pool.query(`CREATE TABLE ${schema}.raw (LIKE ${schema}.events INCLUDING ALL)`);
    const store = new EventStore({ pool, schema });
    const RAW_ONE = `INSERT INTO ${schema}.raw (event_id, stream_id, stream_version, category, type, data, metadata) VALUES ($1, $2, 1, 'task', 'task.created', $3, '{}')`;
    const rows: BenchRow[] = [];
    const n = options.quick ? 1_000 : 4_000;
    const json = JSON.stringify(payload);

    // Warm up both paths (plans, connections).
    await throughput(200, 8, (lane) => pool.query({ name: 'raw-one', text: RAW_ONE, values: [randomUUID(), `w-${lane}-${randomUUID()}`, json] }));
    await throughput(200, 8, (lane) => store.append(`warm-${lane}`, [{ type: 'task.created', data: payload }], { expected: 'any' }));

    // Appends go to existing streams with the exact expected version, as a command handler does
    // (read → decide → append); each lane owns a stream so lanes never conflict.
    const versions = new Map<string, bigint>();
    const appendNext = async (streamId: string) => {
      const expected = versions.get(streamId) ?? ('no-stream' as const);
      const result = await store.append(streamId, [{ type: 'task.created', data: payload }], { expected });
      versions.set(streamId, result.nextExpectedVersion);
    };
    const rawOne = (stream: string) => pool.query({ name: 'raw-one', text: RAW_ONE, values: [randomUUID(), stream, json] });
    const lanes = `task-${randomUUID()}`;

    const [app1, raw1] = await alternate(3,
      () => throughput(n, 1, () => appendNext(`${lanes}-solo`)),
      () => throughput(n, 1, (_, i) => rawOne(`r-${i}-${randomUUID()}`)),
    );
    rows.push({ name: 'single-event append, 1 client', value: app1, baseline: raw1, unit: 'tx/s', target: 0.8 });

    const [app8, raw8] = await alternate(3,
      () => throughput(n * 2, 8, (lane) => appendNext(`${lanes}-lane${lane}`)),
      () => throughput(n * 2, 8, (lane, i) => rawOne(`r8-${lane}-${i}-${randomUUID()}`)),
    );
    rows.push({ name: 'single-event append, 8 clients', value: app8, baseline: raw8, unit: 'tx/s', target: 0.7 });

    const [created] = await alternate(1, () => throughput(n, 8, () => store.append(`task-new-${randomUUID()}`, [{ type: 'task.created', data: payload }], { expected: 'no-stream' })), async () => 0);
    rows.push({ name: 'new-stream append, 8 clients', value: created, unit: 'tx/s', note: 'creates a stream row per append' });

    const batches = options.quick ? 100 : 300;
    const batch = Array.from({ length: 100 }, () => ({ type: 'task.created', data: payload }));
    const [appBatch, rawBatch] = await alternate(3,
      () => throughput(batches, 1, (_, i) => store.append(`task-b${i}-${randomUUID()}`, batch, { expected: 'no-stream' })),
      () => throughput(batches, 1, (_, i) =>
      pool.query(`INSERT INTO ${schema}.raw (event_id, stream_id, stream_version, category, type, data, metadata)
         SELECT gen_random_uuid(), $1, v, 'task', 'task.created', d, '{}'::jsonb FROM unnest($2::jsonb[]) WITH ORDINALITY AS u (d, v)`,
        [`rb-${i}-${randomUUID()}`, batch.map(() => json)]),
    ));
    rows.push({ name: 'append batches of 100', value: appBatch * 100, baseline: rawBatch * 100, unit: 'events/s', target: 0.7 });

    // Replay: fill the log quickly with set-based inserts, then time a processor and a raw scan over it.
    const total = options.replayEvents;
    for (let done = 0; done < total; done += 100_000) {
      const chunk = Math.min(100_000, total - done);
      await pool.query(
        `INSERT INTO ${schema}.events (event_id, stream_id, stream_version, category, type, data, metadata)
         SELECT gen_random_uuid(), 'replay-' || (g / 10), (g % 10) + 1, 'replay', 'replay.happened', $2::jsonb, '{}'::jsonb
           FROM generate_series($1::bigint, $1::bigint + $3 - 1) AS g`,
        [done, json, chunk],
      );
    }
    const { rows: countRows } = await pool.query(`SELECT count(*)::int AS c FROM ${schema}.events`);
    const logSize = countRows[0].c as number;

    const child = await replayInChildProcess(db.url, schema);
    rows.push({ name: `processor replay (${logSize.toLocaleString('en-US')} events)`, value: child.rate, baseline: child.rawRate, unit: 'events/s', target: 0.5, note: 'medians of 3 alternating runs; baseline: raw ordered scan in the same process' });
    rows.push({
      name: 'replay RSS growth (after 1% → peak)',
      value: child.peakMb - child.warmMb,
      unit: 'MB',
      note: 'constant memory: growth over the last 99% of the replay',
    });
    rows.push({
      name: 'replay RSS growth (start → peak)',
      value: child.peakMb - child.startMb,
      unit: 'MB',
      note: `target < 50 MB; own process (cold start incl. JIT warm-up): start ${child.startMb.toFixed(0)}, at 1% ${child.warmMb.toFixed(0)}, at 10% ${child.tenthMb.toFixed(0)}, peak ${child.peakMb.toFixed(0)}, end ${child.endMb.toFixed(0)} MB`,
    });
    return rows;
  } finally {
    await pool.end();
    await db.drop();
  }
}

async function replayInChildProcess(url: string, schema: string) {
  const compiled = join(__dirname, 'replay-memory.child.js');
  // Uncapped, V8 lets promoted batch garbage grow old space well past the processor's live heap between
  // major GCs; a 128 MB old-space cap with 8 MB semi-spaces (as for a dedicated projection worker)
  // keeps RSS flat for a small share of throughput (figures: bench/README.md).
  const args = existsSync(compiled) ? ['--max-semi-space-size=8', '--max-old-space-size=128', compiled] : ['-r', '@swc-node/register', join(__dirname, 'replay-memory.child.ts')];
  const { stdout } = await promisify(execFile)(process.execPath, [...args, url, schema], {
    maxBuffer: 1024 * 1024,
    timeout: 600_000,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as { handled: number; rawRate: number; startMb: number; warmMb: number; tenthMb: number; peakMb: number; endMb: number; rate: number };
}
