import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { maySpend, recordUsage, setBudget, setSubjectNamespace } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { deleteNamespaceStreams } from '@headspace/testing';
import { connect } from '@nats-io/transport-node';
import { benchDatabase, percentile, printTable, type BenchRow } from './bench-kit';
import { benchNats, launchService, natsUrl, type ServiceProcess } from './service-process';
import { SERVICE_NODE_FLAGS } from '../scripts/service-command';

const CALLERS = Number(process.env.BENCH_CG_CALLERS ?? 50);
/** Offered loads (pairs/s across all callers) of the paced runs (BENCH_CG_PACED=100,400). */
const PACED_RATES = (process.env.BENCH_CG_PACED ?? '100,400').split(',').map(Number);

type Nats = Awaited<ReturnType<typeof connect>>;

/**
 * The cost-governor's hot path as agents use it: 50 concurrent callers (one agent session each, all
 * in one team) loop may-spend → record-usage (settling the reservation). Every call reserves and
 * settles on two budgets — the caller's session and the shared team budget, the worst case for
 * contention — at exact stream versions, group-committed. Beside it, in the same run on the same
 * NATS, a raw request/reply round trip at the same concurrency (a responder that echoes), so the
 * overhead is a ratio and not an absolute that depends on the machine. Also printed: how well the
 * group commit batches (commands per tick, from the governor's metrics) and the governor's CPU time
 * per pair, which is steadier than latencies on a busy machine.
 *
 * A third round trip is measured the same ways: the durable floor (durable-echo.child.ts), a
 * responder in its own process that answers only once the request is committed to PostgreSQL,
 * group-committed, with no logic at all. It is what any governor pays that records a reservation
 * durably before answering, as this one must (a crash loses nothing; instances share budgets): the
 * part of the target's ratio no governor code can remove on this machine.
 *
 * The closed loop measures saturation: with no pause between calls, latency is queueing (p99 ≈
 * callers / throughput). Agents pause for a model call between may-spend and record-usage, so the
 * bench also paces the same 50 callers at fixed offered loads (each pause jittered so the callers do
 * not move in step) and prints the p99 at each beside a raw round trip paced the same way: the
 * latency an agent sees while the governor is not saturated. A team's real load is far below both
 * rates (a pair per model call, seconds apart).
 */
export async function benchCostGovernor(options: { quick: boolean }): Promise<BenchRow[]> {
  const pairs = options.quick ? 2_000 : 10_000;
  const db = await benchDatabase('costgov');
  const namespace = `bench-cg-${randomBytes(3).toString('hex')}`;
  const nc = await benchNats();
  const echo = await benchNats();
  setSubjectNamespace(namespace);
  let governor: ServiceProcess | undefined;
  let floor: ChildProcess | undefined;
  try {
    // Diagnosis only: shows how much of the latency is WAL flushes on this machine's disk.
    if (process.env.BENCH_CG_ASYNC_COMMIT === '1') await db.pool.query(`ALTER DATABASE ${db.name} SET synchronous_commit = off`);
    governor = await launchService('cost-governor', { DATABASE_URL: db.url, HS_NAMESPACE: namespace }, process.env.HS_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.HS_BENCH_CPU_PROF}`] : []);
    const team = 'bench-team';
    await request(nc, setBudget, { scope: { kind: 'team', team }, limitUsd: '1000000', setBy: 'bench' });
    for (let i = 0; i < CALLERS; i++) await request(nc, setBudget, { scope: { kind: 'session', sessionId: `s${i}` }, limitUsd: '100000', setBy: 'bench' });

    const echoSubject = `${namespace}.bench.echo`;
    const floorSubject = `${namespace}.bench.durable-echo`;
    const sub = echo.subscribe(echoSubject, { queue: 'bench', callback: (_error, msg) => void msg.respond(msg.data) });
    await echo.flush();
    floor = await launchDurableEcho(db.url, floorSubject);
    const raw = await roundTrips(nc, echoSubject, pairs * 2);
    const durable = await roundTrips(nc, floorSubject, pairs * 2);
    await hotPath(nc, team, Math.min(400, pairs)); // warm-up: JIT, pools, prepared statements
    const pid = governor.child.pid!;
    const [cpuBefore, writesBefore, ticksBefore] = [cpuMsOf(pid), writeCallsOf(pid), await groupCommitStats(governor.metricsPort)];
    const hot = await hotPath(nc, team, pairs);
    const cpuPerPair = (cpuMsOf(pid) - cpuBefore) / pairs;
    const writesPerPair = (writeCallsOf(pid) - writesBefore) / pairs;
    const ticks = diffStats(await groupCommitStats(governor.metricsPort), ticksBefore);
    const drainMs = await untilIdle(pid);
    const paced: BenchRow[] = [];
    for (const rate of PACED_RATES) {
      const n = options.quick ? rate * 3 : rate * 8;
      const rawPaced = await roundTrips(nc, echoSubject, n * 2, rate * 2);
      const durablePaced = await roundTrips(nc, floorSubject, n * 2, rate * 2);
      const [cpuAt, writesAt] = [cpuMsOf(pid), writeCallsOf(pid)];
      const gov = await hotPath(nc, team, n, rate);
      const [pacedCpu, pacedWrites] = [(cpuMsOf(pid) - cpuAt) / n, (writeCallsOf(pid) - writesAt) / n];
      paced.push(
        {
          name: `paced at ${rate} pairs/s offered (${CALLERS} callers): may-spend p50`,
          value: ms(gov.maySpend, 50),
          unit: 'ms',
          note: `${gov.pairsPerSecond.toFixed(0)} pairs/s done, ${gov.errors} errors; ${verdict(ms(gov.maySpend, 99), ms(rawPaced.latencies, 99), ms(durablePaced.latencies, 99))}; record-usage p99 ${ms(gov.recordUsage, 99).toFixed(2)} ms; CPU ${pacedCpu.toFixed(2)} ms and ${pacedWrites.toFixed(1)} write calls per pair`,
        },
        floorRow(`paced at ${rate * 2} requests/s: durable floor p50`, durablePaced.latencies, ms(rawPaced.latencies, 99)),
      );
    }
    sub.unsubscribe();

    const rawP99 = ms(raw.latencies, 99);
    const floorP99 = ms(durable.latencies, 99);
    return [
      { name: `raw NATS request/reply round trips/s (${CALLERS} callers)`, value: raw.perSecond, unit: 'req/s' },
      { name: 'raw NATS request/reply p50 / p99', value: ms(raw.latencies, 50), unit: 'ms', note: `p99 ${rawP99.toFixed(2)} ms` },
      { name: `durable floor round trips/s (${CALLERS} callers)`, value: durable.perSecond, unit: 'req/s', note: 'each request committed to PostgreSQL before its reply, no logic' },
      floorRow('durable floor p50', durable.latencies, rawP99),
      {
        name: `may-spend + record-usage pairs/s (${CALLERS} callers, ${pairs} pairs)`,
        value: hot.pairsPerSecond,
        unit: 'pairs/s',
        note: `${hot.errors} errors; ${(hot.pairsPerSecond * 2).toFixed(0)} requests/s vs raw ${raw.perSecond.toFixed(0)}/s`,
      },
      { name: 'may-spend p50', value: ms(hot.maySpend, 50), unit: 'ms', note: verdict(ms(hot.maySpend, 99), rawP99, floorP99) },
      { name: 'record-usage p50', value: ms(hot.recordUsage, 50), unit: 'ms', note: verdict(ms(hot.recordUsage, 99), rawP99, floorP99) },
      {
        name: 'group commit: commands per tick',
        value: ticks.commands / Math.max(1, ticks.ticks),
        unit: 'cmds',
        note: `${ticks.ticks} ticks: ${ticks.modes.cached ?? 0} from cache, ${ticks.modes.read ?? 0} read first, ${ticks.modes.locked ?? 0} retried under locks`,
      },
      { name: 'backlog after the closed loop drained in', value: drainMs, unit: 'ms', note: 'projections and relay catching up; the paced runs start once the governor idles' },
      ...paced,
      {
        name: 'cost-governor CPU per pair (all its threads)',
        value: cpuPerPair,
        unit: 'ms',
        note: `${((cpuPerPair * hot.pairsPerSecond) / 10).toFixed(0)}% of one core during the closed loop; ${writesPerPair.toFixed(1)} write calls per pair (sockets to PostgreSQL and NATS, mostly)`,
      },
      { name: 'cost-governor RSS after the run', value: governor.rssMb(), unit: 'MB' },
    ];
  } finally {
    setSubjectNamespace('');
    floor?.kill('SIGTERM');
    await governor?.stop();
    await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
    await echo.close();
    await nc.close();
    await db.drop();
  }
}

/** The acceptance: p99 under 10 ms and at most 3× the raw request/reply p99 of the same run. */
const meetsTarget = (p99: number, rawP99: number) => p99 < 10 && p99 / rawP99 <= 3;

/** The governor against the target, and how far above the durable floor. */
function verdict(p99: number, rawP99: number, floorP99: number): string {
  return `p99 ${p99.toFixed(2)} ms = ${(p99 / rawP99).toFixed(1)}× raw p99 (target < 10 ms and ≤ 3×: ${meetsTarget(p99, rawP99) ? 'met' : 'NOT met'}), ${(p99 / floorP99).toFixed(1)}× the durable floor's`;
}

/** The durable floor against the same target: whether any governor that commits before it answers could meet it on this machine. */
function floorRow(name: string, latencies: number[], rawP99: number): BenchRow {
  const p99 = ms(latencies, 99);
  return { name, value: ms(latencies, 50), unit: 'ms', note: `p99 ${p99.toFixed(2)} ms = ${(p99 / rawP99).toFixed(1)}× raw p99 (the target, for the floor itself: ${meetsTarget(p99, rawP99) ? 'within reach' : 'out of reach'})` };
}

/** The durable floor's responder in a process of its own (compiled when dist/ exists), subscribed on return. */
async function launchDurableEcho(databaseUrl: string, subject: string): Promise<ChildProcess> {
  const compiled = join(__dirname, 'durable-echo.child.js');
  const script = existsSync(compiled) ? [compiled] : ['-r', '@swc-node/register', join(__dirname, 'durable-echo.child.ts')];
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, ...script, databaseUrl, natsUrl(), subject], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => lines.on('line', (line) => line === 'ready' && resolve(true))),
    new Promise<boolean>((resolve) => child.once('exit', () => resolve(false))),
  ]);
  if (!ready) throw new Error('the durable echo exited before it was ready');
  return child;
}

interface GroupCommitStats {
  ticks: number;
  commands: number;
  modes: Record<string, number>;
}

/** The governor's group-commit counters from its Prometheus endpoint. */
async function groupCommitStats(port: number): Promise<GroupCommitStats> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const stats: GroupCommitStats = { ticks: 0, commands: 0, modes: {} };
  for (const line of text.split('\n')) {
    const mode = /^headspace_budget_group_commit_ticks(?:_total)?\{[^}]*mode="(\w+)"[^}]*\} (\S+)/.exec(line);
    if (mode) stats.modes[mode[1]] = (stats.modes[mode[1]] ?? 0) + Number(mode[2]);
    const sum = /^headspace_budget_group_commit_commands_sum(?:\{[^}]*\})? (\S+)/.exec(line);
    if (sum) stats.commands += Number(sum[1]);
    const count = /^headspace_budget_group_commit_commands_count(?:\{[^}]*\})? (\S+)/.exec(line);
    if (count) stats.ticks += Number(count[1]);
  }
  return stats;
}

function diffStats(after: GroupCommitStats, before: GroupCommitStats): GroupCommitStats {
  const modes = Object.fromEntries(Object.entries(after.modes).map(([mode, n]) => [mode, n - (before.modes[mode] ?? 0)]));
  return { ticks: after.ticks - before.ticks, commands: after.commands - before.commands, modes };
}

/** CPU time a process used so far, user + system over all its threads (Linux /proc, 100 ticks a second). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Write system calls a process made so far (Linux /proc/<pid>/io `syscw`): on a VM each socket write that wakes another process is dear. */
function writeCallsOf(pid: number): number {
  return Number(/syscw:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? NaN);
}

/**
 * Waits until the governor idles (under 5 % of a core over half a second): the closed loop leaves
 * its projections and relay behind, and a paced run that started then would measure their catch-up.
 */
async function untilIdle(pid: number): Promise<number> {
  const started = performance.now();
  for (let before = cpuMsOf(pid); ; ) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = cpuMsOf(pid);
    if (now - before < 25 || performance.now() - started > 120_000) return performance.now() - started;
    before = now;
  }
}

/** Prints the cost-governor section on its own (run.ts prints the rows of every section together). */
export async function runCostGovernorBench(options: { quick: boolean }): Promise<void> {
  printTable(await benchCostGovernor(options));
}

/** The p-th percentile of unsorted latencies. */
const ms = (xs: number[], p: number) => percentile([...xs].sort((a, b) => a - b), p);

/** Sleeps about `meanMs` (uniformly ±50 %, so paced callers drift apart). */
const pause = (meanMs: number) => new Promise((resolve) => setTimeout(resolve, meanMs * (0.5 + Math.random())));

/** `rate`: pairs/s offered across all callers, each pausing between its calls like an agent waiting for a model; none: a closed loop. */
async function hotPath(nc: Nats, team: string, count: number, rate?: number) {
  // Each caller makes two calls per pair and pauses after each: CALLERS / rate seconds per pair per caller.
  const gapMs = rate ? (CALLERS / rate / 2) * 1000 : 0;
  const maySpendMs: number[] = [];
  const recordUsageMs: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, lane) => {
      if (gapMs) await pause(gapMs); // callers start spread out, not all at once
      const attribution = { sessionId: `s${lane}`, persona: `agent-${lane}`, team, project: 'bench', surface: 'cli' as const };
      while (next++ < count) {
        try {
          let t = performance.now();
          const answer = await request(nc, maySpend, { attribution, signals: { filesAffected: 3 }, estimate: { inputTokens: 4_000, maxOutputTokens: 2_000 } }, { timeoutMs: 30_000 });
          maySpendMs.push(performance.now() - t);
          if (gapMs) await pause(gapMs);
          t = performance.now();
          await request(
            nc,
            recordUsage,
            { attribution, model: answer.routing.model, reservationId: answer.reservationId, tokens: { inputTokens: 3_000, outputTokens: 1_200, cacheReadTokens: 20_000 } },
            { timeoutMs: 30_000 },
          );
          recordUsageMs.push(performance.now() - t);
          if (gapMs) await pause(gapMs);
        } catch {
          errors++;
        }
      }
    }),
  );
  return { pairsPerSecond: count / ((performance.now() - started) / 1000), maySpend: maySpendMs, recordUsage: recordUsageMs, errors };
}

/** Core-NATS request/reply to `subject` (a responder in a queue group) at the hot path's concurrency (and pacing: `rate` requests/s offered). */
async function roundTrips(nc: Nats, subject: string, count: number, rate?: number) {
  const gapMs = rate ? (CALLERS / rate) * 1000 : 0;
  const body = new TextEncoder().encode(JSON.stringify({ attribution: { sessionId: 's', persona: 'p', team: 't', project: 'p', surface: 'cli' }, estimate: { inputTokens: 4_000, maxOutputTokens: 2_000 } }));
  const latencies: number[] = [];
  let next = 0;
  const run = async (n: number, record: boolean) => {
    next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        if (gapMs) await pause(gapMs);
        while (next++ < n) {
          const t = performance.now();
          await nc.request(subject, body, { timeout: 10_000 });
          if (record) latencies.push(performance.now() - t);
          if (gapMs) await pause(gapMs);
        }
      }),
    );
    return n / ((performance.now() - started) / 1000);
  };
  if (!rate) await run(Math.min(1_000, count), false);
  const perSecond = await run(count, true);
  return { perSecond, latencies };
}
