import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort, waitFor } from '@headspace/testing';

const repo = resolve(__dirname, '../../../..');

/**
 * The orchestrator as a real process (the compiled build when there is one, else from source), for
 * specs that SIGKILL it: started with the spec's environment on a free port and waited for until
 * /health/ready answers 200. An exit while starting fails the wait at once.
 */
export async function startOrchestratorProcess(env: Record<string, string>): Promise<ChildProcess> {
  const port = await freePort();
  const compiled = join(repo, 'dist', 'apps', 'orchestrator', 'src', 'main.js');
  const args = existsSync(compiled) ? [compiled] : ['-r', '@swc-node/register', join(repo, 'apps', 'orchestrator', 'src', 'main.ts')];
  const child = spawn(process.execPath, args, {
    cwd: repo,
    env: { ...process.env, SWC_NODE_PROJECT: join(repo, 'tsconfig.json'), ...env, HTTP_PORT: String(port) },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`orchestrator exited with ${child.exitCode}`);
      return (await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined))?.status === 200;
    },
    { timeoutMs: 60_000, message: 'the orchestrator to be ready' },
  );
  return child;
}

/** SIGKILL (no shutdown hook runs), resolved once the process has exited. */
export async function killProcess(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}
