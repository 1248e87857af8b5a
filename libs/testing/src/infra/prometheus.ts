import { aptInstall, missingReason } from './apt-install';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopChild, trackedChildren } from './child-processes';
import { freePort, stderrLog, waitFor, which, type Log } from './util';

const SBIN_DIRS = ['/usr/bin', '/usr/sbin', '/usr/local/bin', '/opt/homebrew/bin'];

export function findPrometheusBinary(): string | undefined {
  return which('prometheus', SBIN_DIRS);
}

export function findPostgresExporterBinary(): string | undefined {
  return which('prometheus-postgres-exporter', SBIN_DIRS) ?? which('postgres_exporter', SBIN_DIRS);
}

export const PROMETHEUS_MISSING_HELP =
  'prometheus was not found on PATH or in /usr/bin: the dashboard spec evaluates every panel query on a real one. Install it ' +
  '(Debian/Ubuntu: `sudo apt-get install -y prometheus`; macOS: `brew install prometheus`; or a release binary from ' +
  'https://github.com/prometheus/prometheus/releases put on PATH).';

export const POSTGRES_EXPORTER_MISSING_HELP =
  'postgres_exporter was not found: the Infrastructure dashboard reads its metric names. Install it ' +
  '(Debian/Ubuntu: `sudo apt-get install -y prometheus-postgres-exporter`; or a release binary from ' +
  'https://github.com/prometheus-community/postgres_exporter/releases put on PATH as postgres_exporter).';

/**
 * Finds `find()`'s binary, installing the Debian `pkg` with apt-get when allowed and possible
 * (root + apt-get), as nats-server and bubblewrap are. Policy-rc.d or not, the package's own
 * service is not what the specs use: they start the binary on a free port themselves.
 */
async function ensureDebianBinary(pkg: string, find: () => string | undefined, help: string, allowInstall: boolean, log: Log): Promise<string> {
  const found = find();
  if (found) return found;
  const outcome = await aptInstall([pkg], { allowInstall, log, purpose: 'for the dashboards spec' });
  const installed = find();
  if (installed) return installed;
  throw new Error(missingReason(pkg, outcome, help));
}

/** The prometheus binary (Debian's `prometheus` package when installed here). Throws saying how to get it. */
export function ensurePrometheusBinary({ allowInstall = true, log = stderrLog }: { allowInstall?: boolean; log?: Log } = {}): Promise<string> {
  return ensureDebianBinary('prometheus', findPrometheusBinary, PROMETHEUS_MISSING_HELP, allowInstall, log);
}

/** The postgres_exporter binary (Debian's `prometheus-postgres-exporter`). Throws saying how to get it. */
export function ensurePostgresExporterBinary({ allowInstall = true, log = stderrLog }: { allowInstall?: boolean; log?: Log } = {}): Promise<string> {
  return ensureDebianBinary('prometheus-postgres-exporter', findPostgresExporterBinary, POSTGRES_EXPORTER_MISSING_HELP, allowInstall, log);
}

export interface ScrapeTarget {
  job: string;
  /** host:port */
  target: string;
  labels?: Record<string, string>;
}

export interface PrometheusHandle {
  url: string;
  /** Instant query through the HTTP API; returns the parsed JSON body (status success or error) as Prometheus sends it. */
  query(expr: string, time?: Date): Promise<PrometheusQueryResponse>;
  /** Range query (what a Grafana panel asks), `stepSeconds` apart from `start` to `end`. */
  queryRange(expr: string, start: Date, end: Date, stepSeconds: number): Promise<PrometheusQueryResponse>;
  /** SIGTERM (SIGKILL after a grace period) and the temporary data dir removed. */
  stop(): Promise<void>;
}

export interface PrometheusQueryResponse {
  status: 'success' | 'error';
  data?: { resultType: string; result: unknown[] };
  errorType?: string;
  error?: string;
}


function spawnTracked(bin: string, args: string[], env?: NodeJS.ProcessEnv): { child: ChildProcess; exited: () => string | undefined } {
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'], ...(env ? { env } : {}) });
  trackedChildren.add(child);
  let stderr = '';
  let exitInfo: string | undefined;
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
  child.once('exit', (code, signal) => {
    trackedChildren.delete(child);
    exitInfo = `${bin} exited (${code ?? signal}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`;
  });
  child.once('error', (error) => (exitInfo = error.message));
  return { child, exited: () => exitInfo };
}

async function httpOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * A throwaway Prometheus on a free 127.0.0.1 port with its own temporary data dir, scraping
 * `targets` every `scrapeIntervalSeconds`. Resolves once it is ready.
 */
export async function startPrometheus(opts: { targets: ScrapeTarget[]; scrapeIntervalSeconds?: number; timeoutMs?: number }): Promise<PrometheusHandle> {
  const bin = await ensurePrometheusBinary();
  const dir = mkdtempSync(join(tmpdir(), 'hs-prometheus-'));
  const interval = `${opts.scrapeIntervalSeconds ?? 1}s`;
  const jobs = [...new Set(opts.targets.map((t) => t.job))].map((job) => ({
    job_name: job,
    scrape_interval: interval,
    scrape_timeout: interval,
    static_configs: opts.targets.filter((t) => t.job === job).map((t) => ({ targets: [t.target], labels: t.labels ?? {} })),
  }));
  // JSON is YAML: no YAML writer needed.
  writeFileSync(join(dir, 'prometheus.yml'), JSON.stringify({ global: { scrape_interval: interval, evaluation_interval: interval }, scrape_configs: jobs }, null, 2));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { child, exited } = spawnTracked(bin, [
    `--config.file=${join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--storage.tsdb.retention.time=1d',
  ]);
  const stop = async () => {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      `Prometheus at ${url}`,
      async () => {
        const died = exited();
        if (died) throw new Error(died);
        return httpOk(`${url}/-/ready`);
      },
      { timeoutMs: opts.timeoutMs ?? 60_000, intervalMs: 200 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const api = async (path: string, params: Record<string, string>) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', body: new URLSearchParams(params), signal: AbortSignal.timeout(30_000) });
    return (await res.json()) as PrometheusQueryResponse;
  };
  const seconds = (at: Date) => String(at.getTime() / 1_000);
  return {
    url,
    query: (expr, time) => api('/api/v1/query', { query: expr, ...(time ? { time: seconds(time) } : {}) }),
    queryRange: (expr, start, end, stepSeconds) => api('/api/v1/query_range', { query: expr, start: seconds(start), end: seconds(end), step: String(stepSeconds) }),
    stop,
  };
}

export interface ExporterHandle {
  /** host:port to scrape */
  target: string;
  stop(): Promise<void>;
}

/** postgres_exporter on a free 127.0.0.1 port for `databaseUrl` (its pg_* names are what the Infrastructure dashboard reads). */
export async function startPostgresExporter(opts: { databaseUrl: string; timeoutMs?: number }): Promise<ExporterHandle> {
  const bin = await ensurePostgresExporterBinary();
  const port = await freePort();
  const target = `127.0.0.1:${port}`;
  const dsn = new URL(opts.databaseUrl);
  if (!dsn.searchParams.has('sslmode')) dsn.searchParams.set('sslmode', 'disable');
  const { child, exited } = spawnTracked(bin, [`--web.listen-address=${target}`, '--disable-settings-metrics'], { ...process.env, DATA_SOURCE_NAME: dsn.toString() });
  try {
    await waitFor(
      `postgres_exporter at ${target}`,
      async () => {
        const died = exited();
        if (died) throw new Error(died);
        return httpOk(`http://${target}/metrics`);
      },
      { timeoutMs: opts.timeoutMs ?? 30_000, intervalMs: 200 },
    );
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { target, stop: () => stopChild(child) };
}
