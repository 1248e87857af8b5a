import type { ChildProcess } from 'node:child_process';

/** Servers a spec started (nats-server, Prometheus, exporters): killed if the test process exits without stopping them. */
export const trackedChildren = new Set<ChildProcess>();
process.once('exit', () => trackedChildren.forEach((child) => child.kill('SIGKILL')));

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited and is untracked. */
export function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      trackedChildren.delete(child);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
