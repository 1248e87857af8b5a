/**
 * `npm run test:multi-host` (issue 28, scope 5): three hosts as network namespaces on this machine,
 * a 3-node NATS cluster (JetStream R3) across them, PostgreSQL on host 1, two replicas of every
 * service; under a steady load through both gateways it kills host 2 (its NATS node and every
 * process on it, mid-way through a run whose sessions run there) and brings it back, then
 * partitions host 3 off and heals it. Fails (exit 1) unless every acknowledged command is in the
 * log exactly once, the run is resumed by the other orchestrator and completes with its worktree,
 * and every projection rebuilt from position 0 equals its live tables. Prints the numbers.
 * Run as root (ip netns). Everything it creates is named hs-mh-* and removed on exit, on SIGINT/
 * SIGTERM, and at the start of the next run after a SIGKILL.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import { waitFor } from '../../libs/testing/src/infra/util';
import { commandIdFor } from '../../apps/gateway/src/routes/command-id';
import { declaredProjections, differences, exactlyOnce, logHeads, projectionContents, projectionsBehind, resetProjections, type Contents } from './checks';
import { createHosts, hosts, killEverythingOn, setPartitioned, sweepHosts } from './hosts';
import { Load, statsBetween, type WindowStats } from './load';
import { natsNodes, natsServers, waitForMetaLeader } from './nats-hosts';
import { startPostgresOn } from './postgres-host';
import { compileServices, ready, replica, REPO, type Replica, type ServiceName } from './services';

const DEADLINE_MS = Number(process.env.HS_MULTI_HOST_TIMEOUT_MS ?? 900_000);
const LOAD_RATE = Number(process.env.HS_MULTI_HOST_RATE ?? 5);
const [H1, H2, H3] = hosts;
/** Host A: killed with the run's sessions on its orchestrator. Host 1 keeps PostgreSQL and is never faulted. */
const KILLED = H2;
const PARTITIONED = H3;
const LAYOUT: Array<[ServiceName, typeof H1]> = [
  ['gateway', H2], ['gateway', H3],
  ['orchestrator', H2], ['orchestrator', H1],
  ['team-manager', H1], ['team-manager', H2],
  ['cost-governor', H1], ['cost-governor', H3],
  ['ops-leon', H1], ['ops-leon', H3],
];

const started = Date.now();
const say = (message: string) => process.stdout.write(`[multi-host +${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`);
const failures: string[] = [];
const check = (ok: boolean, what: string) => {
  say(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};

const tmp = mkdtempSync(`/tmp/hs-mh-${process.pid}-`);
// PostgreSQL runs as its own OS user, with its data dir in here.
chmodSync(tmp, 0o755);
const build = join(REPO, '.headspace', `multi-host-build-${process.pid}`);
let pool: Pool | undefined;
let cleaned = false;

/** Synchronous, so it also runs from a signal handler: every process in the namespaces, the network, the files. */
function cleanup(): void {
  if (cleaned) return;
  cleaned = true;
  void pool?.end().catch(() => undefined);
  sweepHosts();
  rmSync(tmp, { recursive: true, force: true });
  rmSync(build, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    say(`${signal}: cleaning up`);
    cleanup();
    process.exit(130);
  });
}
process.once('exit', cleanup);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Builds and temp dirs left by runs that were SIGKILLed (their pid is gone). */
function sweepLeftovers(): void {
  const places: Array<[string, RegExp]> = [
    [join(REPO, '.headspace'), /^multi-host-build-(\d+)$/],
    ['/tmp', /^hs-mh-(\d+)-\w+$/],
  ];
  for (const [dir, pattern] of places) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const pid = Number(pattern.exec(name)?.[1]);
      if (pid && pid !== process.pid && !alive(pid)) rmSync(join(dir, name), { recursive: true, force: true });
    }
  }
}

async function allReady(replicas: Replica[]): Promise<boolean> {
  return (await Promise.all(replicas.map((r) => ready(r.url)))).every(Boolean);
}

const pct = (s: WindowStats) => `${(s.errorRate * 100).toFixed(1)} % (${s.firstAttemptErrors} of ${s.sent} first attempts failed; ${s.notAcked} not acknowledged after the retry)`;

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('needs root: it creates network namespaces (ip netns)');
  sweepHosts();
  sweepLeftovers();
  say('compiling the services (swc)');
  compileServices(build);
  say(`creating hosts ${hosts.map((h) => `${h.namespace}=${h.address}`).join(', ')} on bridge`);
  createHosts();

  const pg = await startPostgresOn(H1, join(tmp, 'pg'));
  pool = new Pool({ connectionString: pg.url, max: 4 });
  const nats = await natsNodes(tmp);
  await Promise.all(nats.map((n) => n.start()));
  await waitForMetaLeader(nats[0]);
  say(`PostgreSQL on ${H1.namespace}, NATS cluster n1..n3 up`);
  execFileSync(process.execPath, [join(build, 'scripts', 'migrate.js')], { cwd: REPO, env: { PATH: process.env.PATH, DATABASE_URL: pg.url, HS_DB_ROLES: 'true' }, stdio: ['ignore', 'ignore', 'inherit'] });

  const adminToken = `hst_mh_admin_${randomBytes(24).toString('base64url')}`;
  const work = join(tmp, 'work');
  const logs = join(tmp, 'logs');
  mkdirSync(logs, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: pg.url,
    NATS_URL: natsServers,
    HS_JETSTREAM_REPLICAS: '3',
    LOG_LEVEL: process.env.HS_MULTI_HOST_LOG_LEVEL ?? 'warn',
    HS_ADMIN_TOKEN: adminToken,
    HS_RATE_LIMIT_MAX: '1000000',
    HS_RATE_LIMIT_ADDRESS_MAX: '1000000',
    HS_WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
    HS_OPS_SECRET_KEY: randomBytes(32).toString('hex'),
    // The orchestrators share one work directory: the RWX volume of deploy/k8s.
    HS_WORKSPACES_DIR: join(work, 'runs'),
    HS_AGENT_HOME: join(work, 'agents'),
    HS_SIMULATOR_SCENARIOS: join(REPO, 'examples', 'scenarios', 'word-stats'),
    // Model calls take about a second, so a builder's session is mid-way when its host dies.
    HS_SIMULATOR_LATENCY: '800,300',
    SESSION_LEASE_MS: '3000',
    SESSION_SWEEP_MS: '300',
    RUN_SWEEP_MS: '300',
  };
  const replicas = LAYOUT.map(([service, host]) => replica(service, host, build, logs, env));
  const orchestratorA = replicas.find((r) => r.service === 'orchestrator' && r.host === KILLED)!;
  const orchestratorB = replicas.find((r) => r.service === 'orchestrator' && r.host !== KILLED)!;
  const gateways = replicas.filter((r) => r.service === 'gateway');
  const t0 = Date.now();
  await Promise.all(replicas.filter((r) => r !== orchestratorB).map((r) => r.start()));
  say(`9 replicas ready in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${replicas.filter((r) => r !== orchestratorB).map((r) => r.id).join(', ')}`);

  const api = async (path: string, body: unknown) => {
    const res = await fetch(`${gateways[0].url}/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json', 'idempotency-key': randomBytes(16).toString('hex') },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, string>;
  };
  const teams = Array.from({ length: 8 }, (_, i) => `load-${i + 1}`);
  for (const name of ['mh-run', ...teams]) await api('/teams', { name, leadAgentType: 'architect' });
  // The gateway scopes each Idempotency-Key to its token: the log's command ids derive from both.
  const { tokenId } = (await (await fetch(`${gateways[0].url}/api/v1/whoami`, { headers: { authorization: `Bearer ${adminToken}` } })).json()) as { tokenId: string };
  const load = new Load({ gateways: gateways.map((g) => g.url), token: adminToken, teams, ratePerSecond: LOAD_RATE });
  load.start();
  say(`load: ${LOAD_RATE} commands/s round robin over ${gateways.map((g) => g.id).join(', ')}`);

  // The run starts while host 2's orchestrator is the only one: its sessions run there.
  const goal = readFileSync(join(REPO, 'examples', 'word-stats', 'GOAL.md'), 'utf8');
  const { runId } = await api('/teams/mh-run/runs', { goal, source: join(REPO, 'examples', 'word-stats'), mode: 'v3', operator: 'auto' });
  const leaseOwners = async () =>
    (await pool!.query<{ session_id: string; owner: string }>(`SELECT session_id, owner FROM orchestrator.session_leases WHERE session_id LIKE $1`, [`${runId}.%`])).rows;
  const ownerA = await waitFor('the run’s first session on host 2', async () => (await leaseOwners())[0]?.owner, { timeoutMs: 60_000, intervalMs: 50 });
  await orchestratorB.start();
  say(`run ${runId} started on ${orchestratorA.id} (session lease owner ${ownerA}); ${orchestratorB.id} ready`);

  // Kill host 2 once a builder is mid-session there.
  const building = await waitFor(
    'a builder’s tool call on host 2',
    async () => {
      const { rows } = await pool!.query<{ stream_id: string }>(`SELECT stream_id FROM orchestrator.events WHERE type = 'session.tool-called' AND stream_id LIKE $1 LIMIT 1`, [`session-${runId}.task.%`]);
      if (!rows[0]) return undefined;
      const sessionId = rows[0].stream_id.slice('session-'.length);
      return (await leaseOwners()).find((l) => l.session_id === sessionId && l.owner === ownerA)?.session_id;
    },
    { timeoutMs: 120_000, intervalMs: 20 },
  );
  const killAt = Date.now();
  const killed = killEverythingOn(KILLED);
  say(`KILL ${KILLED.namespace}: SIGKILL to ${killed} processes (nats n2, ${replicas.filter((r) => r.host === KILLED).map((r) => r.id).join(', ')} and any agent processes) while session ${building} runs there`);

  const resumed = await waitFor(
    `session ${building} resumed by ${orchestratorB.id}`,
    async () => (await leaseOwners()).find((l) => l.session_id === building && l.owner !== ownerA)?.owner ?? (await sessionEndedAfter(building, killAt)),
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  const resumedAfter = Date.now() - killAt;
  say(`session ${building} resumed by ${orchestratorB.id} (${resumed}) ${(resumedAfter / 1000).toFixed(1)} s after the kill`);
  await new Promise((r) => setTimeout(r, Math.max(0, 6_000 - (Date.now() - killAt))));

  const reviveAt = Date.now();
  await nats[KILLED.index - 1].start();
  await Promise.all(replicas.filter((r) => r.host === KILLED).map((r) => r.start()));
  await waitFor('every replica ready after the revival', () => allReady(replicas), { timeoutMs: 240_000, intervalMs: 100 });
  const readyAfterKill = Date.now();
  say(`REVIVED ${KILLED.namespace}: every service ready ${((readyAfterKill - reviveAt) / 1000).toFixed(1)} s after its start (${((readyAfterKill - killAt) / 1000).toFixed(1)} s after the kill)`);

  await new Promise((r) => setTimeout(r, 3_000));
  const partitionAt = Date.now();
  setPartitioned(PARTITIONED, true);
  say(`PARTITION ${PARTITIONED.namespace} (its veth down): nats n3, ${replicas.filter((r) => r.host === PARTITIONED).map((r) => r.id).join(', ')} unreachable`);
  await new Promise((r) => setTimeout(r, 10_000));
  const healAt = Date.now();
  setPartitioned(PARTITIONED, false);
  await waitFor('every replica ready after the heal', () => allReady(replicas), { timeoutMs: 240_000, intervalMs: 100 });
  const readyAfterHeal = Date.now();
  say(`HEALED ${PARTITIONED.namespace}: every service ready ${((readyAfterHeal - healAt) / 1000).toFixed(1)} s after the heal`);

  const ended = await waitFor(
    'the run to end',
    async () =>
      (await pool!.query<{ type: string; data: { resultDir: string; branch: string; verdict: string } }>(`SELECT type, data FROM orchestrator.events WHERE stream_id = $1 AND type IN ('run.completed', 'run.failed')`, [`run-${runId}`])).rows[0],
    { timeoutMs: 150_000, intervalMs: 250 },
  );
  await new Promise((r) => setTimeout(r, 2_000));
  await load.stop();
  const steadyEnd = Date.now();

  // The run: resumed, completed, its worktree on the shared volume.
  check(ended.type === 'run.completed' && ended.data.verdict === 'done', `run ${runId} completed (${ended.type}, verdict ${ended.data.verdict})`);
  const dir = ended.data.resultDir;
  const branchOk = existsSync(dir) && execFileSync('git', ['-C', dir, 'rev-parse', '--abbrev-ref', 'HEAD'], { encoding: 'utf8' }).trim() === ended.data.branch;
  check(branchOk, `its worktree ${dir} is on branch ${ended.data.branch}`);
  const testsPass = existsSync(dir) && /(ℹ|#) fail 0/.test(execFileSync(process.execPath, ['--test'], { cwd: dir, encoding: 'utf8' }));
  check(testsPass, 'the project’s tests pass in it');
  const { rows: after } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM orchestrator.events WHERE stream_id = $1 AND recorded_at > to_timestamp($2 / 1000.0)`, [`session-${building}`, killAt]);
  check(after[0].n > 0, `session ${building} went on after the kill (${after[0].n} events recorded by ${orchestratorB.id})`);

  // Every acknowledged command in the log exactly once.
  const once = await exactlyOnce(pool, load.sent, (key) => commandIdFor({ tokenId }, key));
  check(once.lost.length === 0, `no acknowledged command lost (${once.lost.length} of ${once.acked})`);
  check(once.duplicated.length === 0, `no command applied twice (${once.duplicated.length})`);

  // Projections: the runbook's rebuild (every service stopped, tables and checkpoints emptied, one replica each started) equals live.
  // "Live" is read from a log that no longer moves: every replica stopped (a service may still append as it stops), one of each
  // started again and waited for until every projection's checkpoint is at the end of its log, read, stopped, and the log
  // checked unchanged since the read; otherwise a projection still catching up, or an append at shutdown, reads as a difference.
  // The services started for the rebuild are the product running: a worker may go on with its work and append (Leon escalating
  // a group it triaged, the model call it records at the governor). Rebuilt rows then hold events live never saw, so a round
  // whose log moved during the rebuild proves nothing: the rebuilt tables become the live ones of the next round.
  const projections = declaredProjections();
  const oneEach = [...new Map(replicas.map((r) => [r.service, r])).values()];
  await Promise.all(replicas.map((r) => r.stop()));
  let diff: string[] = [];
  let live: Contents = {};
  let rebuildSeconds: number;
  for (let round = 1; ; round++) {
    let heads: Record<string, string> = {};
    for (let attempt = 1; ; attempt++) {
      await Promise.all(oneEach.map((r) => r.start()));
      let behind: string[] = [];
      await waitFor('every projection at the end of its log', async () => (behind = await projectionsBehind(pool!, projections)).length === 0, {
        timeoutMs: 60_000,
        intervalMs: 500,
      }).catch(() => undefined);
      check(behind.length === 0, `every projection caught up with its log before the rebuild${behind.length ? `; behind: ${behind.join(', ')}` : ''}`);
      heads = await logHeads(pool, projections);
      live = await projectionContents(pool, projections);
      await Promise.all(oneEach.map((r) => r.stop()));
      const moved = Object.entries(await logHeads(pool, projections)).filter(([schema, head]) => heads[schema] !== head);
      if (moved.length === 0) break;
      say(`appended while stopping (${moved.map(([schema]) => schema).join(', ')}): reading live again`);
      if (attempt === 3) throw new Error(`the log kept moving as services stopped: ${moved.map(([schema]) => schema).join(', ')}`);
    }
    await resetProjections(pool, projections);
    const rebuildAt = Date.now();
    await Promise.all(oneEach.map((r) => r.start()));
    let movedDuringRebuild: string[] = [];
    await waitFor(
      'the rebuilt projections to equal the live ones (or the log to move)',
      async () => {
        diff = differences(live, await projectionContents(pool!, projections));
        if (diff.length === 0) return true;
        movedDuringRebuild = Object.entries(await logHeads(pool!, projections)).filter(([schema, head]) => heads[schema] !== head).map(([schema]) => schema);
        // Caught up and still different: the log moved, or the projection is wrong (the check below says which).
        return movedDuringRebuild.length > 0 && (await projectionsBehind(pool!, projections)).length === 0;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    ).catch(() => undefined);
    rebuildSeconds = (Date.now() - rebuildAt) / 1000;
    await Promise.all(oneEach.map((r) => r.stop()));
    if (diff.length === 0 || movedDuringRebuild.length === 0) break;
    say(`appended during the rebuild (${movedDuringRebuild.join(', ')}): the services went on working; settling and rebuilding again`);
    if (round === 3) {
      check(false, `the log kept moving during every rebuild: ${movedDuringRebuild.join(', ')}`);
      break;
    }
  }
  const rows = Object.values(live).reduce((n, r) => n + r.length, 0);
  check(diff.length === 0, `${projections.length} projections (${Object.keys(live).length} tables, ${rows} rows) rebuilt from position 0 equal live in ${rebuildSeconds.toFixed(1)} s${diff.length ? `: ${diff.join('; ')}` : ''}`);

  const killStats = statsBetween(load.sent, killAt, readyAfterKill);
  const partitionStats = statsBetween(load.sent, partitionAt, readyAfterHeal);
  process.stdout.write(
    [
      '',
      'multi-host results',
      `  commands: sent ${load.sent.length}, acknowledged ${once.acked}, lost ${once.lost.length}, applied twice ${once.duplicated.length}, unacknowledged but applied once ${once.appliedUnacked}`,
      `  before the faults: error rate ${pct(statsBetween(load.sent, 0, killAt))}`,
      `  host kill (${KILLED.namespace}): error rate ${pct(killStats)}; session resumed after ${(resumedAfter / 1000).toFixed(1)} s; every service ready ${((readyAfterKill - reviveAt) / 1000).toFixed(1)} s after the host came back (${((readyAfterKill - killAt) / 1000).toFixed(1)} s after the kill)`,
      `  partition (${PARTITIONED.namespace}, ${((healAt - partitionAt) / 1000).toFixed(0)} s): error rate ${pct(partitionStats)}; every service ready ${((readyAfterHeal - healAt) / 1000).toFixed(1)} s after the heal`,
      `  after the faults: error rate ${pct(statsBetween(load.sent, readyAfterHeal, steadyEnd))}`,
      `  replicas that exited while starting and were started again: ${replicas.filter((r) => r.restarts > 0).map((r) => `${r.id} ×${r.restarts}`).join(', ') || 'none'}`,
      `  run ${runId}: ${ended.type}; projections: ${diff.length === 0 ? 'rebuilt == live' : 'DIFFER'}; total ${((Date.now() - started) / 1000).toFixed(0)} s`,
      '',
    ].join('\n'),
  );
  for (const lost of once.lost.slice(0, 5)) say(`lost: ${JSON.stringify(lost)}`);
  for (const dupe of once.duplicated.slice(0, 5)) say(`applied twice: ${JSON.stringify(dupe)}`);
}

async function sessionEndedAfter(sessionId: string, at: number): Promise<string | undefined> {
  const { rows } = await pool!.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM orchestrator.events WHERE stream_id = $1 AND type = 'session.ended' AND recorded_at > to_timestamp($2 / 1000.0)`,
    [`session-${sessionId}`, at],
  );
  return rows[0].n > 0 ? 'ended' : undefined;
}

/** The run's last events and the service logs (to HS_MULTI_HOST_KEEP_LOGS), for a failure. */
async function diagnose(): Promise<void> {
  const logDir = join(tmp, 'logs');
  if (process.env.HS_MULTI_HOST_KEEP_LOGS && existsSync(logDir)) execFileSync('cp', ['-r', logDir, process.env.HS_MULTI_HOST_KEEP_LOGS]);
  const { rows } = await pool!
    .query<{ stream_id: string; type: string; recorded_at: Date }>(`SELECT stream_id, type, recorded_at FROM orchestrator.events ORDER BY global_position DESC LIMIT 12`)
    .catch(() => ({ rows: [] }));
  for (const row of rows.reverse()) say(`  orchestrator log: ${row.recorded_at.toISOString()} ${row.stream_id} ${row.type}`);
}

const watchdog = setTimeout(() => {
  say(`FAIL: not done within ${DEADLINE_MS / 1000} s`);
  void diagnose().finally(() => {
    cleanup();
    process.exit(1);
  });
}, DEADLINE_MS);

main()
  .then(() => {
    if (failures.length) throw new Error(`${failures.length} check(s) failed`);
    say('PASS');
  })
  .catch((error: Error) => {
    failures.push(error.message);
    say(`FAIL: ${error.stack ?? error.message}`);
    return diagnose();
  })
  .finally(() => {
    clearTimeout(watchdog);
    cleanup();
    process.exit(failures.length ? 1 : 0);
  });
