import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { CliError, ExitCode } from '../exit-codes';

/** `examples/ops/demo-app` of the checkout this CLI runs from (sources or dist/), else of the working directory. */
export function findDemoApp(from: string[] = [__dirname, process.cwd()]): string | undefined {
  for (const start of from) {
    for (let dir = resolve(start); ; dir = dirname(dir)) {
      const app = join(dir, 'examples', 'ops', 'demo-app');
      if (existsSync(join(app, 'src', 'server.js'))) return app;
      if (dirname(dir) === dir) break;
    }
  }
  return undefined;
}

export interface DemoAppProcess {
  url: string;
  release: string;
  /** What it printed (its report-exception warnings among them), for a failure message. */
  output: string[];
  stop: () => Promise<void>;
}

/**
 * Starts the demo app on a free port, reporting to `ingestUrl` with `ingestKey`. Its environment
 * holds only what it needs: never the CLI's API token.
 */
export async function startDemoApp(appDir: string, settings: { ingestUrl: string; ingestKey: string; release: string }, timeoutMs = 15_000): Promise<DemoAppProcess> {
  const child = spawn(process.execPath, [join(appDir, 'src', 'server.js')], {
    cwd: appDir,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HEADSPACE_INGEST_URL: settings.ingestUrl, HEADSPACE_INGEST_KEY: settings.ingestKey, HEADSPACE_RELEASE: settings.release },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new CliError(ExitCode.runFailed, `The demo app did not start within ${timeoutMs} ms:\n${output.join('\n')}`)), timeoutMs);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        output.push(line);
        const listening = /listening on (http:\/\/\S+)/.exec(line);
        if (listening) {
          clearTimeout(timer);
          done(listening[1]);
        }
      });
    }
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new CliError(ExitCode.runFailed, `The demo app exited (code ${code}) before it listened:\n${output.join('\n')}`));
    });
  });
  return { url, release: settings.release, output, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}

/** GET a path of the app: its status and JSON body. */
export async function callDemoApp(app: DemoAppProcess, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${app.url}${path}`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}
