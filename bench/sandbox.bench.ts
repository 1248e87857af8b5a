import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox, runShell, sandboxAvailability } from '@headspace/agent-runtime';
import { percentile, type BenchRow } from './bench-kit';

/**
 * What the agent sandbox costs per Bash call: `true` run through runShell (the Bash tool's path:
 * spawn, pipes, exit) bare and inside bubblewrap (wrapper shell, pids cgroup made and removed, every
 * namespace, the mounts), alternating call by call. Target: p99 overhead < 30 ms.
 */
export async function benchSandbox(options: { quick: boolean }): Promise<BenchRow[]> {
  const available = await sandboxAvailability();
  if (!available.available) {
    console.error(`bench: sandbox skipped: ${available.reason}`);
    return [{ name: 'sandbox overhead per Bash call', value: NaN, unit: 'ms', note: `unavailable: ${available.reason}` }];
  }
  const dir = await mkdtemp(join(tmpdir(), 'hs-bench-sandbox-'));
  try {
    execFileSync('git', ['init', '-q', dir]);
    const sandbox = await createSandbox(available, { workspace: dir, workspaceAccess: 'rw', network: false });
    const calls = options.quick ? 100 : 400;
    const time = async (sandboxed: boolean) => {
      const started = performance.now();
      const run = await runShell('true', { cwd: sandbox.policy.workspace, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 10_000, ...(sandboxed ? { sandbox } : {}) });
      if (run.exitCode !== 0) throw new Error(`true failed${sandboxed ? ' in the sandbox' : ''}: ${run.output}`);
      return performance.now() - started;
    };
    for (let i = 0; i < 10; i++) await time(false).then(() => time(true)); // warm-up
    const bare: number[] = [];
    const boxed: number[] = [];
    for (let i = 0; i < calls; i++) {
      bare.push(await time(false));
      boxed.push(await time(true));
    }
    bare.sort((a, b) => a - b);
    boxed.sort((a, b) => a - b);
    const [b50, b99, s50, s99] = [percentile(bare, 50), percentile(bare, 99), percentile(boxed, 50), percentile(boxed, 99)];
    const limit = `pids limit by ${available.pidsLimit}${available.userNamespace ? ', uid 65534' : ''}`;
    return [
      { name: `Bash call of \`true\` in the sandbox p50 (${calls} calls, ${limit})`, value: s50, unit: 'ms', baseline: b50, note: `p99 ${s99.toFixed(1)} ms against bare ${b99.toFixed(1)} ms` },
      { name: 'sandbox overhead per Bash call p50', value: s50 - b50, unit: 'ms', note: `p99 overhead ${(s99 - b99).toFixed(1)} ms (target < 30 ms); ${(s99 / b99).toFixed(1)}× bare at p99` },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
