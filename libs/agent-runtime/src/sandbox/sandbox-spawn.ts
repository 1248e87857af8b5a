import { spawn, type ChildProcess } from 'node:child_process';
import { createPidsCgroup } from './pids-cgroup';
import { bwrapArgs, type SandboxPolicy } from './sandbox-policy';
import { takeWarmWrapper } from './warm-wrapper';

/** A policy plus how to enforce it on this host (from sandboxAvailability). */
export interface Sandbox {
  policy: SandboxPolicy;
  /** The bubblewrap executable. */
  bwrap: string;
  /** Where to make a pids cgroup per call (the process limit for a root orchestrator). */
  pidsCgroupRoot?: string;
  /** util-linux `prlimit`, to set RLIMIT_NPROC (the process limit for a non-root orchestrator without a cgroup). */
  prlimit?: string;
}

export interface SandboxedSpawn {
  file: string;
  args: string[];
  /** The environment of the wrapper and bwrap themselves (the sandbox gets only policy.env). */
  env: Record<string, string>;
  /** Removes the call's cgroup (killing anything left in it). */
  cleanup(): Promise<void>;
}

/**
 * Joins the pids cgroup before becoming bubblewrap, so every process of the sandbox is counted
 * from the first one. POSIX sh: this runs on every Bash call and dash starts in a millisecond.
 */
const JOIN_CGROUP = 'echo $$ > "$1" || exit 125; shift; exec "$@"';

/**
 * How to start `command` inside the sandbox: `sh -c JOIN_CGROUP sandbox <cgroup.procs> bwrap …` with
 * a cgroup, `prlimit --nproc=N:N -- bwrap …` without one (RLIMIT_NPROC, which binds non-root only:
 * the process inside has no capability in the host's namespace to raise it), else bwrap alone.
 */
export function sandboxedArgv(sandbox: Sandbox, command: readonly string[], procsFile?: string): { file: string; args: string[] } {
  const n = sandbox.policy.maxProcesses;
  let argv = [sandbox.bwrap, ...bwrapArgs(sandbox.policy, command)];
  if (procsFile) argv = ['/bin/sh', '-c', JOIN_CGROUP, 'sandbox', procsFile, ...argv];
  else if (sandbox.prlimit) argv = [sandbox.prlimit, `--nproc=${n}:${n}`, '--', ...argv];
  return { file: argv[0], args: argv.slice(1) };
}

/** After the caller's own time limit, how long the backstop inside waits before it kills. */
const BACKSTOP_GRACE_S = 10;

/**
 * `deadlineMs`: the caller's time limit. The caller kills bubblewrap when it passes; should the
 * caller die first (a crashed orchestrator kills nothing), a `timeout` inside ends the command a
 * little later, and the sandbox's PID namespace with it.
 */
const WRAPPER_ENV = { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8' };

const withBackstop = (command: readonly string[], deadlineMs?: number) =>
  deadlineMs === undefined ? command : ['/usr/bin/timeout', '-s', 'KILL', `${Math.ceil(deadlineMs / 1000) + BACKSTOP_GRACE_S}s`, ...command];

/**
 * Starts `command` in the sandbox and returns the running process (its own process group, stdio
 * piped). With a pids cgroup the process is a wrapper started ahead of the call that already joined
 * its cgroup (warm-wrapper.ts), so the call does not wait for the kernel's cgroup migration.
 */
export async function startSandboxed(sandbox: Sandbox, command: readonly string[], deadlineMs?: number): Promise<{ child: ChildProcess; cleanup(): Promise<void> }> {
  const inner = withBackstop(command, deadlineMs);
  if (sandbox.pidsCgroupRoot) {
    const wrapper = await takeWarmWrapper(sandbox.pidsCgroupRoot, sandbox.policy.maxProcesses, WRAPPER_ENV);
    wrapper.exec([sandbox.bwrap, ...bwrapArgs(sandbox.policy, inner)]);
    return { child: wrapper.child, cleanup: () => wrapper.cgroup.remove() };
  }
  const { file, args } = sandboxedArgv(sandbox, inner);
  const child = spawn(file, args, { cwd: '/', env: WRAPPER_ENV, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  return { child, cleanup: async () => undefined };
}

export async function prepareSandboxedSpawn(sandbox: Sandbox, command: readonly string[], deadlineMs?: number): Promise<SandboxedSpawn> {
  const cgroup = sandbox.pidsCgroupRoot ? await createPidsCgroup(sandbox.pidsCgroupRoot, sandbox.policy.maxProcesses) : undefined;
  return {
    ...sandboxedArgv(sandbox, withBackstop(command, deadlineMs), cgroup?.procsFile),
    env: WRAPPER_ENV,
    cleanup: async () => cgroup?.remove(),
  };
}
