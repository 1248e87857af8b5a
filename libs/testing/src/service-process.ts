import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { freePort } from './infra';
import { waitFor } from './wait-for';

const repo = resolve(__dirname, '../../..');

/** A service as a real process on its TypeScript sources, for specs that SIGKILL it (no shutdown hook runs). */
export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  /** The last 20,000 characters it wrote to stdout and stderr. */
  output(): string;
  /** SIGKILL, resolved once it has exited. */
  kill(): Promise<void>;
}

/** Starts `apps/<name>/src/main.ts` with `env` over the spec's own, on free ports, and resolves once it is ready. */
export async function startServiceProcess(name: string, env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  // The OpenTelemetry preload first, as serviceCommand() does (scripts/service-command.ts).
  const preload = join(repo, 'libs', 'telemetry', 'src', 'preload.ts');
  const child = spawn(process.execPath, ['-r', '@swc-node/register', '-r', preload, join(repo, 'apps', name, 'src', 'main.ts')], {
    cwd: repo,
    env: { ...process.env, SWC_NODE_PROJECT: join(repo, 'tsconfig.json'), HTTP_PORT: String(port), METRICS_PORT: String(await freePort()), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const service: ServiceProcess = {
    child,
    port,
    output: () => output,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${output}`);
      return (await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined))?.status === 200;
    },
    { timeoutMs: 40_000, intervalMs: 100, message: `${name} to be ready` },
  );
  return service;
}
