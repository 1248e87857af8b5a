import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createTestDatabase, deleteNamespaceStreams, freePort, waitFor, type TestDatabase } from '@headspace/testing';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceCommand } from './service-command';
import { restartDelayMs, ServiceSupervisor } from './service-supervisor';

const ROOT = join(__dirname, '..');
const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

const ready = async (port: number) =>
  (await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined))?.status === 200;

const ended = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));

describe('npm start keeps each service running', () => {
  let db: TestDatabase;
  const namespace = `sup-${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    db = await createTestDatabase('supervisor');
  });
  afterAll(async () => {
    const nc = await connect({ servers: natsUrl });
    await deleteNamespaceStreams(nc, namespace).finally(() => nc.close());
    await db?.drop();
  });

  it('a SIGKILLed service is started again after its backoff, logged, and answers /health/ready again', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const launch = () =>
      spawn(process.execPath, serviceCommand('team-manager', ROOT), {
        cwd: ROOT,
        env: { ...process.env, SWC_NODE_PROJECT: join(ROOT, 'tsconfig.json'), DATABASE_URL: db.url, NATS_URL: natsUrl, HS_NAMESPACE: namespace, HTTP_PORT: String(port), LOG_LEVEL: 'warn' },
        stdio: 'ignore',
      });
    const supervisor = new ServiceSupervisor({ name: 'team-manager', spawn: launch, log: (l) => lines.push(l), baseDelayMs: 200 }, launch());
    try {
      await waitFor(() => ready(port), { timeoutMs: 45_000, intervalMs: 200, message: 'team-manager ready' });
      const first = supervisor.child;
      first.kill('SIGKILL');
      await ended(first);
      await waitFor(() => supervisor.child !== first, { message: 'a new process' });
      await waitFor(() => ready(port), { timeoutMs: 45_000, intervalMs: 200, message: 'team-manager ready again' });
      expect(supervisor.restarts).toBe(1);
      expect(lines[0]).toMatch(/^team-manager stopped unexpectedly \(signal SIGKILL\); restarting in 200 ms/);
    } finally {
      supervisor.stop();
      supervisor.child.kill('SIGTERM');
      await ended(supervisor.child);
    }
    expect(supervisor.restarts).toBe(1); // stopped: a SIGTERM of its own is not restarted
  }, 60_000);

  it('a crash-looping service waits twice as long before each restart, up to the cap, and stop() ends the loop', async () => {
    const lines: string[] = [];
    const crash = () => spawn(process.execPath, ['-e', 'process.exit(3)'], { stdio: 'ignore' });
    const supervisor = new ServiceSupervisor({ name: 'flaky', spawn: crash, log: (l) => lines.push(l), baseDelayMs: 20, maxDelayMs: 80 }, crash());
    const waits = () => lines.flatMap((l) => /restarting in (\d+) ms/.exec(l)?.[1] ?? []).map(Number);
    try {
      await waitFor(() => waits().length >= 5, { message: 'five crashes' });
    } finally {
      supervisor.stop();
    }
    expect(waits().slice(0, 5)).toEqual([20, 40, 80, 80, 80]);
    expect(lines[0]).toMatch(/flaky stopped unexpectedly \(exit code 3\)/);
    const restarts = supervisor.restarts;
    await ended(supervisor.child);
    expect(supervisor.restarts).toBe(restarts);
  });

  it('the backoff doubles from the base and never exceeds the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 100].map((n) => restartDelayMs(n, 1_000, 30_000))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
  });
});
