import { aptInstall, missingReason } from './apt-install';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { nkeyAuthenticator, type ConnectionOptions } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import type { NatsAuth } from './nats-auth';
import { stopChild, trackedChildren } from './child-processes';
import { freePort, pidAlive, repoRoot, stderrLog, tcpOpen, waitFor, which, type Log } from './util';

export type NatsStatus = 'jetstream' | 'no-jetstream' | 'unreachable';

/**
 * Connects to `url` and asks `$JS.API.INFO`: is there a server, and does it have JetStream?
 * `options` carry credentials for a locked server (one refusing anonymous connections is 'unreachable').
 */
export async function natsStatus(url: string, timeoutMs = 2_000, options: Partial<ConnectionOptions> = {}): Promise<NatsStatus> {
  const { hostname, port } = new URL(url);
  if (!(await tcpOpen(hostname, Number(port || 4222), timeoutMs))) return 'unreachable';
  let nc;
  try {
    nc = await connect({ ...options, servers: url, reconnect: false, timeout: timeoutMs });
  } catch {
    return 'unreachable';
  }
  try {
    const jsm = await jetstreamManager(nc, { timeout: timeoutMs, checkAPI: false });
    await jsm.getAccountInfo(); // $JS.API.INFO
    return 'jetstream';
  } catch {
    return 'no-jetstream';
  } finally {
    await nc.close().catch(() => undefined);
  }
}

const NATS_DIRS = ['/usr/sbin', '/usr/local/sbin', '/usr/local/bin', '/usr/bin', '/opt/homebrew/bin'];

export function findNatsServerBinary(): string | undefined {
  const fromEnv = process.env.HS_NATS_SERVER_BIN;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  return which('nats-server', [...NATS_DIRS, join(repoRoot(), '.headspace', 'bin')]);
}

export const NATS_MISSING_HELP =
  'nats-server (>= 2.2, with JetStream) was not found on PATH or in /usr/sbin. Install it ' +
  '(Debian/Ubuntu: `sudo apt-get install -y nats-server`; macOS: `brew install nats-server`; ' +
  'or a release binary from https://github.com/nats-io/nats-server/releases put on PATH / HS_NATS_SERVER_BIN), ' +
  'or set NATS_URL to a running JetStream-enabled server (nats-server -js).';

/** Finds nats-server, installing it with apt-get when allowed and possible (root + apt-get). */
export async function ensureNatsServerBinary({ allowInstall = true, log = stderrLog } = {}): Promise<string> {
  const found = findNatsServerBinary();
  if (found) return found;
  const outcome = await aptInstall(['nats-server'], { allowInstall, log, purpose: 'for the test servers' });
  const installed = findNatsServerBinary();
  if (installed) return installed;
  throw new Error(missingReason('nats-server', outcome, NATS_MISSING_HELP));
}

/** With `auth`, the server loads its per-service users and refuses anonymous connections. */
function natsArgs(port: number, storeDir: string, auth?: NatsAuth): string[] {
  return ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port), ...(auth ? ['-c', auth.configFile] : [])];
}

/** How the harness probes a server it started: as the admin user when it is locked. */
const probeOptions = (auth?: NatsAuth): Partial<ConnectionOptions> =>
  auth ? { authenticator: nkeyAuthenticator(() => new TextEncoder().encode(readFileSync(auth.adminSeedFile, 'utf8').trim())) } : {};

async function waitForJetStream(url: string, alive: () => string | undefined, timeoutMs: number, auth?: NatsAuth): Promise<void> {
  await waitFor(
    `JetStream nats-server at ${url}`,
    async () => {
      const died = alive();
      if (died !== undefined) throw new Error(`nats-server exited: ${died}`);
      return (await natsStatus(url, 1_000, probeOptions(auth))) === 'jetstream';
    },
    { timeoutMs },
  );
}

export interface NatsServerHandle {
  url: string;
  port: number;
  storeDir: string;
  /** SIGTERM (then SIGKILL after a grace period); the store dir is kept so restart() resumes it. */
  stop(): Promise<void>;
  /** Starts the server again on the same port with the same store dir. */
  restart(): Promise<void>;
  /** stop() and delete the store dir when it was a temporary one. */
  dispose(): Promise<void>;
}


/**
 * A dedicated, throwaway JetStream nats-server child process (for tests that kill/restart NATS).
 * Random free port and a temporary store dir unless given; resolves once JetStream answers.
 */
export async function startNatsServer(
  opts: { port?: number; storeDir?: string; timeoutMs?: number; auth?: NatsAuth } = {},
): Promise<NatsServerHandle> {
  const bin = await ensureNatsServerBinary({ allowInstall: false });
  const ownStore = !opts.storeDir;
  const storeDir = opts.storeDir ?? mkdtempSync(join(tmpdir(), 'hs-nats-'));
  mkdirSync(storeDir, { recursive: true });
  const timeoutMs = opts.timeoutMs ?? 20_000;
  let port = opts.port ?? (await freePort());
  let child: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      const proc = spawn(bin, natsArgs(port, storeDir, opts.auth), { stdio: ['ignore', 'ignore', 'pipe'] });
      trackedChildren.add(proc);
      let stderr = '';
      proc.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
      let exitInfo: string | undefined;
      proc.once('exit', (code, signal) => {
        trackedChildren.delete(proc);
        exitInfo = `code ${code ?? signal}; ${stderr.trim().split('\n').slice(-3).join(' | ')}`;
      });
      proc.once('error', (error) => (exitInfo = error.message));
      try {
        await waitForJetStream(`nats://127.0.0.1:${port}`, () => exitInfo, timeoutMs, opts.auth);
        child = proc;
        return;
      } catch (error) {
        await stopChild(proc);
        // A random port can be taken between choosing and binding it: pick another one.
        if (opts.port === undefined && attempt < 3 && /address already in use/i.test(exitInfo ?? '')) {
          port = await freePort();
          continue;
        }
        throw error;
      }
    }
  };

  await launch();
  const handle: NatsServerHandle = {
    get url() {
      return `nats://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    storeDir,
    async stop() {
      if (child) await stopChild(child);
      child = undefined;
    },
    async restart() {
      await handle.stop();
      await launch();
    },
    async dispose() {
      await handle.stop();
      if (ownStore) rmSync(storeDir, { recursive: true, force: true });
    },
  };
  return handle;
}

/** State of a local daemon started by ensureInfra (kept running across runs under `<stateDir>/nats-<port>`). */
export function natsDaemonDir(stateDir: string, port: number): string {
  return join(stateDir, `nats-${port}`);
}

function readPid(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Starts (or reuses) a detached JetStream nats-server daemon on 127.0.0.1:port. With `auth` it is
 * locked (per-service users, no anonymous access); a running one must refuse anonymous clients.
 */
export async function startNatsDaemon(opts: {
  port: number;
  stateDir: string;
  allowInstall?: boolean;
  log?: Log;
  timeoutMs?: number;
  auth?: NatsAuth;
}): Promise<{ url: string; started: boolean; bin?: string }> {
  const { port, stateDir, log = stderrLog } = opts;
  const url = `nats://127.0.0.1:${port}`;
  const dir = natsDaemonDir(stateDir, port);
  const pidFile = join(dir, 'nats-server.pid');
  const logFile = join(dir, 'nats-server.log');
  if ((await natsStatus(url, 2_000, probeOptions(opts.auth))) === 'jetstream') {
    if (opts.auth && (await natsStatus(url)) !== 'unreachable') {
      throw new Error(`port ${port} has a nats-server that accepts anonymous connections; stop it or set HS_NATS_PORT to another port`);
    }
    return { url, started: false };
  }
  if (await tcpOpen('127.0.0.1', port)) {
    throw new Error(
      `port ${port} is in use by something that is not a JetStream nats-server; free the port or set NATS_URL to another one`,
    );
  }
  const bin = await ensureNatsServerBinary({ allowInstall: opts.allowInstall ?? true, log });
  mkdirSync(join(dir, 'store'), { recursive: true });
  log(`starting nats-server (JetStream) on ${url} — state in ${dir}`);
  const out = openSync(logFile, 'a');
  const child = spawn(bin, [...natsArgs(port, join(dir, 'store'), opts.auth), '-P', pidFile], {
    detached: true,
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  let exitInfo: string | undefined;
  child.once('exit', (code, signal) => (exitInfo = `code ${code ?? signal}, see ${logFile}`));
  child.once('error', (error) => (exitInfo = error.message));
  child.unref();
  await waitForJetStream(url, () => exitInfo, opts.timeoutMs ?? 30_000, opts.auth);
  return { url, started: true, bin };
}

/** Stops a daemon started by startNatsDaemon (no-op when none runs). */
export async function stopNatsDaemon(opts: { port: number; stateDir: string }): Promise<boolean> {
  const pidFile = join(natsDaemonDir(opts.stateDir, opts.port), 'nats-server.pid');
  const pid = readPid(pidFile);
  if (!pid || !pidAlive(pid)) {
    rmSync(pidFile, { force: true });
    return false;
  }
  process.kill(pid, 'SIGTERM');
  try {
    await waitFor(`nats-server pid ${pid} to exit`, async () => !pidAlive(pid), { timeoutMs: 10_000 });
  } catch {
    process.kill(pid, 'SIGKILL');
    await waitFor(`nats-server pid ${pid} to die`, async () => !pidAlive(pid), { timeoutMs: 5_000 });
  }
  rmSync(pidFile, { force: true });
  return true;
}
