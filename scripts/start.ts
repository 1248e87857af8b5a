/**
 * `npm start` supervisor (run by scripts/headspace-env.sh after infrastructure and migrations):
 * spawns the five services, waits for every GET /health/ready to answer 200, prints where each
 * listens, then runs the example (scripts/example-run.ts) with live progress and a summary, says
 * how to run Leon's demo (`headspace ops demo`), and keeps the platform up until Ctrl-C / SIGTERM. A service that dies once the platform is up (a
 * crash, SIGKILL, the OOM killer) is started again after a backoff doubling from 1 s up to 30 s
 * (scripts/service-supervisor.ts), and the restart is logged; the others keep running. While the example runs, service logs go to
 * `.headspace/logs/<service>.log` and only warnings and errors reach the terminal.
 *
 * `npm start -- --services-only` skips the example; `--exit` (or HS_EXIT_AFTER_RUN=1) stops
 * everything after the summary, with exit code 0 only when the run completed.
 *
 * Env: HS_<APP>_PORT (e.g. HS_GATEWAY_PORT, HS_COST_GOVERNOR_PORT), HS_READY_TIMEOUT_MS (default
 * 120000), HS_STOP_GRACE_MS (default 10000), HS_RESTART_MAX_DELAY_MS (default 30000), LOG_LEVEL;
 * NATS_URL is passed on, with each service's own NATS credentials (scripts/service-nats.ts,
 * docs/adr/0012). Each service gets its own DATABASE_URL: its role `hs_<service>` (HS_DB_ROLES;
 * unset: when scripts/migrate.ts created them) or DATABASE_URL_<SERVICE>, never the
 * administrator's URL nor another role's password (docs/adr/0015).
 */
import { serviceCommand } from './service-command';
import { ServiceSupervisor } from './service-supervisor';
import { exampleEnv, runExample } from './example-run';
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync, type WriteStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { tcpOpen } from '../libs/testing/src/infra/util';
import { databaseRoleOf, dbRolesEnabled, serviceProcessEnv } from '../libs/platform/src/database/service-database-url';
import { serviceRolesReady } from '../libs/event-store/src/database-roles';
import { Pool } from 'pg';
import { describeServiceNats, serviceNatsEnv } from './service-nats';

const SERVICES = [
  { name: 'gateway', port: 3000 },
  { name: 'team-manager', port: 3001 },
  { name: 'orchestrator', port: 3002 },
  { name: 'cost-governor', port: 3003 },
  { name: 'ops-leon', port: 3004 },
] as const;

const ROOT = join(__dirname, '..');
/** The checkout (npm start runs from it): examples/ and .headspace/ live here. */
const REPO = process.env.HS_ROOT ?? process.cwd();
const SERVICES_ONLY = process.argv.includes('--services-only');
const EXIT_AFTER_RUN = process.argv.includes('--exit') || process.env.HS_EXIT_AFTER_RUN === '1';
/** Full service logs go here; the terminal shows the run (and the services' warnings and errors). */
let quiet = false;
const shown = new Set<string>();
const logDir = join(REPO, '.headspace', 'logs');
const READY_TIMEOUT_MS = Number(process.env.HS_READY_TIMEOUT_MS ?? 120_000);
const STOP_GRACE_MS = Number(process.env.HS_STOP_GRACE_MS ?? 10_000);
const RESTART_MAX_DELAY_MS = Number(process.env.HS_RESTART_MAX_DELAY_MS ?? 30_000);
const LOG_TAIL = 15;
/** Services connect as their own PostgreSQL roles (docs/adr/0015); decided in main() by useDbRoles(). */
let DB_ROLES = false;
const COLORS = [36, 33, 35, 32, 34];
const useColor = process.stdout.isTTY && !process.env.NO_COLOR;
const width = Math.max(...SERVICES.map((s) => s.name.length));

interface Running {
  name: string;
  port: number;
  child: ChildProcess;
  tail: string[];
  exited?: string;
}

const say = (message: string) => process.stderr.write(`headspace: ${message}\n`);

function portFor(name: string, fallback: number): number {
  const raw = process.env[`HS_${name.toUpperCase().replace(/-/g, '_')}_PORT`];
  const port = raw ? Number(raw) : fallback;
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`invalid port "${raw}" for ${name}`);
  return port;
}

function entrypoint(name: string): string[] {
  return serviceCommand(name, join(__dirname, '..'), ROOT);
}

const SEALING_KEYS: Record<string, () => Record<string, string>> = {
  'ops-leon': () => ({ HS_OPS_SECRET_KEY: sealingKey('HS_OPS_SECRET_KEY', 'ops-secret-key') }),
  gateway: () => ({ HS_WEBHOOK_SECRET_KEY: sealingKey('HS_WEBHOOK_SECRET_KEY', 'webhook-secret-key') }),
};

const loud = (line: string) => !/"level":"(trace|debug|info)"/.test(line) && !/\bLOG\b.*\[(InstanceLoader|RoutesResolver|RouterExplorer|NestFactory|NestApplication)\]/.test(line);

/**
 * A key sealing stored webhook secrets (Leon's notifications, ADR 0022; the gateway's subscriptions,
 * ADR 0027): the operator's, else one kept in .headspace/ (0600), so every start opens what the last sealed.
 */
function sealingKey(variable: 'HS_OPS_SECRET_KEY' | 'HS_WEBHOOK_SECRET_KEY', fileName: string): string {
  if (process.env[variable]) return process.env[variable];
  const file = join(REPO, '.headspace', fileName);
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  }
  return readFileSync(file, 'utf8').trim();
}

/** The model API key reaches only the services that call the model: the orchestrator (agents) and ops-leon (triage). */
function withoutModelKey(name: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (name === 'orchestrator' || name === 'ops-leon') return env;
  const { ANTHROPIC_API_KEY: _key, ANTHROPIC_AUTH_TOKEN: _token, ...rest } = env;
  return rest;
}

function launch(name: string, port: number, index: number, extraEnv: Record<string, string>): Running {
  const child = spawn(process.execPath, entrypoint(name), {
    cwd: ROOT,
    // Services run from dist/: the default source root is the checkout's examples/, not dist's.
    env: { HS_SOURCE_ROOTS: join(REPO, 'examples'), ...extraEnv, ...serviceProcessEnv(name, withoutModelKey(name, process.env), DB_ROLES), ...serviceNatsEnv(name, process.env), HTTP_PORT: String(port), LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', SERVICE_NAME: name, ...SEALING_KEYS[name]?.() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const running: Running = { name, port, child, tail: [] };
  const label = name.padEnd(width);
  const prefix = useColor ? `\x1b[${COLORS[index % COLORS.length]}m${label}\x1b[0m | ` : `${label} | `;
  let log: WriteStream | undefined;
  if (!SERVICES_ONLY) {
    mkdirSync(logDir, { recursive: true });
    log = createWriteStream(join(logDir, `${name}.log`), { flags: 'a' });
  }
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on('line', (line) => {
      running.tail.push(line);
      if (running.tail.length > LOG_TAIL) running.tail.shift();
      log?.write(`${line}\n`);
      if (!quiet) process.stdout.write(`${prefix}${line}\n`);
      else if (loud(line) && !shown.has(line)) {
        // Library warnings (e.g. the SDK's model deprecation notice) repeat on every call: once is enough.
        shown.add(line);
        process.stdout.write(`${prefix}${line}\n`);
      }
    });
  }
  child.once('exit', (code, signal) => (running.exited = signal ? `signal ${signal}` : `exit code ${code}`));
  child.once('error', (error) => (running.exited = error.message));
  // 'close' follows the last line of its output; a restart opens the file anew.
  child.once('close', () => log?.end());
  return running;
}

/** Where Leon's demo is, printed after the example run's summary. */
function opsDemoLine(gatewayUrl: string, stopping: boolean): string {
  const token = process.env.HS_ADMIN_TOKEN ? '$HS_ADMIN_TOKEN' : '$(cat .headspace/admin-token)';
  const simulated = process.env.ANTHROPIC_API_KEY ? '' : ', simulated';
  return [
    `Leon's ops demo (examples/ops/demo-app${simulated}): the app throws, Leon triages it, you approve the fix, the team fixes it; the timeline runs to RESOLVED, then REGRESSED.${stopping ? ' With the platform up (npm start):' : ''}`,
    `  HEADSPACE_URL=${gatewayUrl} HEADSPACE_TOKEN=${token} npx headspace ops demo`,
  ].join('\n');
}

async function ready(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2_000) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** The agent sandbox as the orchestrator reports it (GET /health/sandbox): loud when agents would run unsandboxed or not at all. */
async function sayAgentSandbox(port: number | undefined): Promise<void> {
  if (port === undefined) return;
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health/sandbox`, { signal: AbortSignal.timeout(5_000) });
    const body = (await res.json()) as { status: string; warning?: string; reason?: string; version?: string; pidsLimit?: string };
    if (body.status === 'enforced') say(`agent sandbox: ${body.version}, process limit by ${body.pidsLimit}`);
    else if (body.status === 'off') say(`WARNING: ${body.warning}`);
    else say(`WARNING: agent sandbox unavailable, agent sessions will not start: ${body.reason}`);
  } catch {
    // The orchestrator's own log says it as well.
  }
}

async function waitUntilReady(services: Running[]): Promise<Running[]> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const pending = new Set(services);
  while (pending.size > 0 && Date.now() < deadline) {
    for (const service of [...pending]) {
      if (service.exited) return [service];
      if (await ready(service.port)) {
        pending.delete(service);
        say(`${service.name} is ready on port ${service.port}`);
      }
    }
    if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return [...pending];
}

function stopAll(services: Running[]): Promise<void> {
  return Promise.all(
    services.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  ).then(() => undefined);
}

/**
 * HS_DB_ROLES=true/false decides; unset, the services use their roles when scripts/migrate.ts
 * could create them (an administrator without CREATEROLE migrates without, and says so).
 */
async function useDbRoles(): Promise<boolean> {
  if (process.env.HS_DB_ROLES) return dbRolesEnabled(process.env, true);
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
  try {
    return await serviceRolesReady(pool, SERVICES.map((s) => ({ schema: s.name.replace(/-/g, '_'), role: databaseRoleOf(s.name) })));
  } catch {
    return false;
  } finally {
    await pool.end();
  }
}

async function main(): Promise<number> {
  DB_ROLES = await useDbRoles();
  const plan = SERVICES.map((s) => ({ name: s.name, port: portFor(s.name, s.port) }));
  const missing = plan.filter((s) => !existsSync(join(ROOT, 'apps', s.name, 'src', 'main.ts')) && !existsSync(join(__dirname, '..', 'apps', s.name, 'src', 'main.js')));
  if (missing.length) {
    say(`cannot start: missing ${missing.map((s) => `apps/${s.name}/src/main.ts`).join(', ')}`);
    return 1;
  }
  for (const { name, port } of plan) {
    if (await tcpOpen('127.0.0.1', port, 500)) {
      say(`cannot start: port ${port} for ${name} is already in use (set HS_${name.toUpperCase().replace(/-/g, '_')}_PORT)`);
      return 1;
    }
  }

  say(`starting ${plan.map((s) => s.name).join(', ')}; PostgreSQL: ${DB_ROLES ? 'each service as its own role hs_<service> (docs/adr/0015)' : 'every service as DATABASE_URL (no per-service roles)'}`);
  say(describeServiceNats(plan.map((s) => s.name), process.env));
  const extraEnv = SERVICES_ONLY ? {} : exampleEnv(REPO);
  if (!SERVICES_ONLY) say(`service logs: ${logDir}/<service>.log`);
  quiet = !SERVICES_ONLY;
  const services = plan.map((s, i) => launch(s.name, s.port, i, extraEnv));
  const supervisors: ServiceSupervisor[] = [];
  let stopping = false;
  const shutdown = async (why: string, code: number) => {
    if (stopping) return;
    stopping = true;
    for (const supervisor of supervisors) supervisor.stop(); // no restart from here on
    say(`${why}: stopping all services (SIGTERM, SIGKILL after ${STOP_GRACE_MS} ms)`);
    await stopAll(services);
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown('SIGINT', 130));
  process.on('SIGTERM', () => void shutdown('SIGTERM', 143));

  const failed = await waitUntilReady(services);
  if (failed.length) {
    for (const s of failed) {
      const state = s.exited ? `exited (${s.exited})` : `not ready after ${READY_TIMEOUT_MS} ms`;
      say(`${s.name} ${state} — last log lines:\n${s.tail.map((l) => `    ${l}`).join('\n') || '    (no output)'}`);
    }
    await shutdown(`failed to start: ${failed.map((s) => s.name).join(', ')}`, 1);
    return 1;
  }

  // Metrics are on each service's internal port (METRICS_PORT, default HTTP_PORT + 1000), not its public one.
  const rows = services.map((s) => [s.name, `http://127.0.0.1:${s.port}`, `http://127.0.0.1:${s.port + 1000}/metrics`, `/health/ready`]);
  const head = ['service', 'url', 'metrics', 'health'];
  const cols = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(cols[i])).join('  ');
  process.stdout.write(`\n${line(head)}\n${cols.map((w) => '-'.repeat(w)).join('  ')}\n${rows.map(line).join('\n')}\n\n`);
  await sayAgentSandbox(services.find((s) => s.name === 'orchestrator')?.port);
  services.forEach((s, i) => {
    const supervisor = new ServiceSupervisor(
      {
        name: s.name,
        // The new process replaces the dead one in `services`, so a shutdown stops it.
        spawn: () => {
          services[i] = launch(s.name, s.port, i, extraEnv);
          void waitUntilReady([services[i]]); // says when it is ready again
          return services[i].child;
        },
        log: say,
        maxDelayMs: RESTART_MAX_DELAY_MS,
        lastLines: () => services[i].tail,
      },
      s.child,
    );
    supervisors.push(supervisor);
  });
  if (SERVICES_ONLY) {
    say('all services ready; Ctrl-C stops them');
    return new Promise<number>(() => undefined); // run until a signal; services that die are restarted
  }

  const gateway = services.find((s) => s.name === 'gateway')!;
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  const summary = await runExample(REPO, `http://127.0.0.1:${gateway.port}`, stop.signal).catch((error: unknown) => {
    say(`the example run could not be followed: ${(error as Error).message}`);
    return undefined;
  });
  const ok = summary?.view.phase === 'completed';
  quiet = false;
  process.stdout.write(`\n${opsDemoLine(`http://127.0.0.1:${gateway.port}`, EXIT_AFTER_RUN)}\n\n`);
  if (EXIT_AFTER_RUN) {
    await shutdown(ok ? 'example run finished' : 'example run did not complete', ok ? 0 : 1);
    return ok ? 0 : 1;
  }
  say(`the platform is still up: API http://127.0.0.1:${gateway.port}/api/docs (admin token in .headspace/admin-token); Ctrl-C stops it`);
  return new Promise<number>(() => undefined);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    say(`start failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
