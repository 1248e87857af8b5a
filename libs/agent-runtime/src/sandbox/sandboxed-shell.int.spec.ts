import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatOnWriteHook } from '../hooks/builtins';
import { runCommandHook } from '../hooks/handlers';
import type { HookInput } from '../hooks/events';
import { runShell } from '../tools/bash-tool';
import { isAlive } from '../tools/testing/processes';
import { createSandbox } from './create-sandbox';
import { sandboxAvailability, type SandboxAvailability } from './sandbox-availability';
import type { Sandbox } from './sandbox-spawn';

/** bubblewrap for real: what a command inside can and cannot reach. */
let available: Extract<SandboxAvailability, { available: true }>;
let root: string;
let workspace: string;
let outside: string;
let listener: Server;
let port: number;

const sh = (command: string, sandbox: Sandbox, timeoutMs = 20_000) => runShell(command, { cwd: sandbox.policy.workspace, env: {}, timeoutMs, sandbox });

beforeAll(async () => {
  const probed = await sandboxAvailability();
  if (!probed.available) throw new Error(`bubblewrap is required for this spec: ${probed.reason}`);
  available = probed;
  root = await mkdtemp(join(tmpdir(), 'hs-sandbox-'));
  workspace = join(root, 'ws');
  execFileSync('git', ['init', '-q', workspace]);
  execFileSync('git', ['-C', workspace, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'first']);
  // Outside /tmp: the sandbox's own /tmp is a private, writable tmpfs, so a write there would "work".
  outside = await mkdtemp('/var/tmp/hs-sandbox-outside-');
  await writeFile(join(outside, 'secret.txt'), 'top secret\n');
  listener = createServer((s) => s.end('hello\n'));
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  port = (listener.address() as { port: number }).port;
});

afterAll(async () => {
  listener?.close();
  if (root) await rm(root, { recursive: true, force: true });
  if (outside) await rm(outside, { recursive: true, force: true });
});

describe('a sandboxed shell (bubblewrap)', () => {
  it('runs in the worktree, writes there, and git works on it', async () => {
    const sandbox = await createSandbox(available, { workspace, workspaceAccess: 'rw', network: false });
    const r = await sh('pwd; echo made > made.txt; git log --format=%s; git status --porcelain', sandbox);
    expect(r.exitCode).toBe(0);
    expect(r.output).toContain(workspace);
    expect(r.output).toContain('first');
    expect(await readFile(join(workspace, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('sees a cleared environment: no secrets of the caller, a private HOME', async () => {
    process.env.HS_SANDBOX_SPEC_TOKEN = 'sk-ant-api03-should-not-leak';
    const sandbox = await createSandbox(available, { workspace, workspaceAccess: 'rw', network: false });
    const r = await sh('env; cat /proc/1/environ | tr "\\0" "\\n"', sandbox);
    expect(r.output).not.toContain('sk-ant-api03-should-not-leak');
    expect(r.output).not.toContain('DATABASE_URL');
    expect(r.output).toContain('HOME=/tmp/home');
  });

  it('has no view of host processes and cannot read the caller\'s /proc/<pid>/environ', async () => {
    const sandbox = await createSandbox(available, { workspace, workspaceAccess: 'rw', network: false });
    const r = await sh(`cat /proc/${process.pid}/environ`, sandbox);
    expect(r.exitCode).not.toBe(0);
    const ps = await sh('ls /proc | grep -c "^[0-9]"', sandbox);
    expect(Number(ps.stdout.trim())).toBeLessThan(10);
  });

  it('cannot read or write outside the worktree, nor change git config', async () => {
    const sandbox = await createSandbox(available, { workspace, workspaceAccess: 'rw', network: false });
    expect((await sh(`cat ${outside}/secret.txt`, sandbox)).exitCode).not.toBe(0);
    expect((await sh(`echo x > ${outside}/escaped.txt`, sandbox)).exitCode).not.toBe(0);
    expect((await sh('echo x > /escaped.txt', sandbox)).exitCode).not.toBe(0);
    expect((await sh('echo x > /usr/escaped.txt', sandbox)).exitCode).not.toBe(0);
    expect((await sh('git config core.fsmonitor "touch /tmp/pwned"', sandbox)).exitCode).not.toBe(0);
    await expect(readFile(join(outside, 'escaped.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('reaches no TCP listener of the host unless the team opted into the network', async () => {
    const closed = await createSandbox(available, { workspace, workspaceAccess: 'rw', network: false });
    const blocked = await sh(`exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`, closed);
    expect(blocked.exitCode).not.toBe(0);
    expect(blocked.output).not.toContain('hello');
    const open = await createSandbox(available, { workspace, workspaceAccess: 'rw', network: true });
    const reached = await sh(`exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`, open);
    expect(reached.output).toContain('hello');
  });

  it('a read-only worktree can be read but not written', async () => {
    const sandbox = await createSandbox(available, { workspace, workspaceAccess: 'ro', network: false });
    expect((await sh('git log --format=%s', sandbox)).output).toContain('first');
    expect((await sh('echo x > ro.txt', sandbox)).exitCode).not.toBe(0);
  });

  it('in a git worktree, commits work inside while git config, hooks and the .git pointer stay read-only', async () => {
    const tree = join(root, 'tree-con');
    execFileSync('git', ['-C', workspace, 'worktree', 'add', '-q', '-b', 'con', tree]);
    const sandbox = await createSandbox(available, { workspace: tree, workspaceAccess: 'rw', network: false });
    const common = await realpath(join(workspace, '.git'));
    expect(sandbox.policy.writablePaths).toEqual([common]);
    expect(sandbox.policy.protectedPaths).toEqual(expect.arrayContaining([join(await realpath(tree), '.git'), join(common, 'config'), join(common, 'hooks')]));
    const commit = await sh('echo work > w.txt && git add w.txt && git -c user.name=con -c user.email=c@h commit -qm work && git log --format=%s -1', sandbox);
    expect(commit.output).toContain('work');
    expect(execFileSync('git', ['-C', workspace, 'log', '--format=%s', '-1', 'con'], { encoding: 'utf8' }).trim()).toBe('work');
    expect((await sh('git config core.fsmonitor "touch /tmp/pwned"', sandbox)).exitCode).not.toBe(0);
    expect((await sh(`echo "#!/bin/sh" > ${common}/hooks/post-commit`, sandbox)).exitCode).not.toBe(0);
    expect((await sh('echo "gitdir: /elsewhere" > .git', sandbox)).exitCode).not.toBe(0);
    expect(await readFile(join(common, 'config'), 'utf8')).not.toContain('fsmonitor');
  });

  it('runs command hooks inside the sandbox too, with only the hook protocol variables crossing in', async () => {
    const sandbox = await createSandbox(available, { workspace, workspaceAccess: 'rw', network: false });
    const input = { session_id: 's-9', hook_event_name: 'PreToolUse', cwd: workspace, tool_name: 'Bash', tool_input: { command: 'ls' } } as unknown as HookInput;
    const command = `echo "sid=$HEADSPACE_SESSION_ID tok=\${DEPLOY_TOKEN:-none} $(cat /proc/${process.pid}/environ >/dev/null 2>&1 && echo leaked || echo sealed)" >&2; exit 2`;
    const run = await runCommandHook({ command }, input, { cwd: workspace, env: { HEADSPACE_SESSION_ID: 's-9', DEPLOY_TOKEN: 't0k', PATH: '/usr/bin:/bin' }, timeoutMs: 10_000, sandbox });
    expect(run).toEqual({ status: 'decided', exitCode: 2, verdict: 'deny', reason: 'sid=s-9 tok=none sealed' });
  });

  it('runs the format-on-write formatter inside the sandbox (it reads the worktree\'s config: code)', async () => {
    const sandbox = await createSandbox(available, { workspace, workspaceAccess: 'rw', network: false });
    await writeFile(join(workspace, 'f.txt'), 'x\n');
    const hook = formatOnWriteHook({ command: ['bash', '-c', 'echo "pid=$$ $(test -r /proc/' + process.pid + '/environ && echo leaked || echo sealed)" >> "$0"'] });
    const input = { session_id: 's', hook_event_name: 'PostToolUse', cwd: workspace, tool_name: 'Write', tool_input: { file_path: 'f.txt' } } as unknown as HookInput;
    const out = await hook.run(input, { env: {}, signal: new AbortController().signal, sandbox });
    expect(out).toMatchObject({ verdict: 'noop', systemMessage: 'formatted f.txt' });
    expect(await readFile(join(workspace, 'f.txt'), 'utf8')).toMatch(/^x\npid=\d sealed\n$/);
  });

  it('bounds the number of processes (a fork bomb hits the limit) and the time limit kills everything inside', async () => {
    const sandbox = await createSandbox(available, { workspace, workspaceAccess: 'rw', network: false, maxProcesses: 32 });
    const r = await sh('for i in $(seq 1 64); do sleep 7301 & done; wait', sandbox, 3_000);
    expect(r.timedOut).toBe(true);
    expect(r.output).toMatch(/fork|Resource temporarily unavailable/);
    await expect.poll(() => hostPidsRunning('sleep 7301'), { timeout: 5_000 }).toEqual([]);
  });
});

/** Host pids whose command line is exactly `cmdline` (args joined by spaces). */
function hostPidsRunning(cmdline: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+(.*)/s))
    .filter(([, args]) => args === cmdline)
    .map(([pid]) => Number(pid))
    .filter(isAlive);
}
