import { createPidsCgroup } from './pids-cgroup';
import { bwrapArgs, type SandboxPolicy } from './sandbox-policy';

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
export async function prepareSandboxedSpawn(sandbox: Sandbox, command: readonly string[], deadlineMs?: number): Promise<SandboxedSpawn> {
  const cgroup = sandbox.pidsCgroupRoot ? await createPidsCgroup(sandbox.pidsCgroupRoot, sandbox.policy.maxProcesses) : undefined;
  const inner = deadlineMs === undefined ? command : ['/usr/bin/timeout', '-s', 'KILL', `${Math.ceil(deadlineMs / 1000) + BACKSTOP_GRACE_S}s`, ...command];
  return {
    ...sandboxedArgv(sandbox, inner, cgroup?.procsFile),
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8' },
    cleanup: async () => cgroup?.remove(),
  };
}
