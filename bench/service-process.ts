import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, waitFor } from '@headspace/testing';
import { connectNats } from '@headspace/platform';
import { serviceCommand } from '../scripts/service-command';

export const natsUrl = () => process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** A NATS connection set up as the services' own (their callers are services), for the bench's callers. */
export const benchNats = (name = 'bench') => connectNats({ natsUrl: natsUrl(), name });

export interface ServiceProcess {
  name: string;
  port: number;
  /** The internal GET /metrics port (METRICS_PORT). */
  metricsPort: number;
  child: ChildProcess;
  rssMb(): number;
  stop(): Promise<void>;
}

/** One service as a real process (compiled when dist/ exists, with the service V8 flags), ready on return. */
export async function launchService(name: string, env: Record<string, string>, nodeFlags: string[] = []): Promise<ServiceProcess> {
  const port = await freePort();
  const metricsPort = await freePort();
  const child = spawn(process.execPath, [...nodeFlags, ...serviceCommand(name, join(__dirname, '..'))], {
    env: { ...process.env, HTTP_PORT: String(port), METRICS_PORT: String(metricsPort), NATS_URL: natsUrl(), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const service: ServiceProcess = {
    name,
    port,
    metricsPort,
    child,
    rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
      return (await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined))?.status === 200;
    },
    { timeoutMs: 60_000, message: `${name} ready` },
  );
  return service;
}
