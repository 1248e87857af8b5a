import { execFile, spawn, type SpawnOptions } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { dirname, join } from 'node:path';

export type Log = (message: string) => void;

/** Default logger: one line to stderr, so CLIs can keep stdout for machine-readable output. */
export const stderrLog: Log = (message) => process.stderr.write(`headspace: ${message}\n`);

/** Polls `probe` until it returns a truthy value or `timeoutMs` elapses (then throws naming `what`). */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false | null>,
  { timeoutMs = 30_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** True when something accepts TCP connections on host:port. */
export function tcpOpen(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => done(true));
  });
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function isLocalHost(host: string): boolean {
  return ['127.0.0.1', 'localhost', '::1', '[::1]', '0.0.0.0', ''].includes(host);
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion (bounded), never throws on a non-zero exit. */
export function run(
  file: string,
  args: string[],
  options: SpawnOptions & { timeoutMs?: number } = {},
): Promise<RunResult> {
  const { timeoutMs = 120_000, ...spawnOptions } = options;
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], ...spawnOptions });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${timeoutMs} ms)`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: -1, stdout, stderr: `${stderr}${error.message}` });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** Finds an executable by name on PATH plus extra directories. */
export function which(name: string, extraDirs: string[] = []): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':'), ...extraDirs].filter(Boolean);
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The checkout root: HS_ROOT, else the nearest ancestor of cwd whose package.json is "headspace". */
export function repoRoot(): string {
  if (process.env.HS_ROOT) return process.env.HS_ROOT;
  let dir = process.cwd();
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'headspace') return dir;
      } catch {
        // not ours; keep walking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

export function execText(file: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) =>
    execFile(file, args, { timeout: 10_000 }, (error, stdout) => resolve(error ? undefined : stdout.trim())),
  );
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Cross-process mutex: an exclusive `mkdir` of `<dir>/<name>.lock` holding the owner's pid
 * (a lock whose owner died is taken over). Bounded wait.
 */
export async function withLock<T>(dir: string, name: string, fn: () => Promise<T>, timeoutMs = 600_000): Promise<T> {
  const lock = join(dir, `${name}.lock`);
  mkdirSync(dir, { recursive: true });
  await waitFor(
    `lock ${lock}`,
    async () => {
      try {
        mkdirSync(lock);
        writeFileSync(join(lock, 'pid'), String(process.pid));
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        let owner: number;
        try {
          owner = Number(readFileSync(join(lock, 'pid'), 'utf8'));
        } catch {
          // owner is between mkdir and writing its pid — or died there: give it 10 s
          const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
          if (Date.now() - since > 10_000) rmSync(lock, { recursive: true, force: true });
          return false;
        }
        if (owner && !pidAlive(owner)) rmSync(lock, { recursive: true, force: true });
        return false;
      }
    },
    { timeoutMs, intervalMs: 200 },
  );
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The URL with its password hidden, for logs. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}
