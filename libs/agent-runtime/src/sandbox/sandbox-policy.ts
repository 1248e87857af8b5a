/**
 * What a sandboxed process may see and do. Built once per session (sandbox-policy.factory.ts) and
 * turned into a bubblewrap command line by `bwrapArgs` — a pure function, so every rule here is
 * unit-tested without starting a process.
 */
export type WorkspaceAccess = 'rw' | 'ro' | 'none';

/** How the host's top-level system directories look: a symlink (usr-merged `/bin -> usr/bin`) or a real directory. */
export type SystemLayout = Readonly<Record<string, { symlink: string } | 'dir'>>;

export interface SandboxPolicy {
  /** Absolute real path of the worktree; mounted at the same path so tool output names host paths. */
  workspace: string;
  workspaceAccess: WorkspaceAccess;
  /** Share the host's network namespace (explicit per-team opt-in). false: loopback only, nothing listens. */
  network: boolean;
  /** The environment inside, already allow-listed (sandboxEnv). Nothing else crosses `--clearenv`. */
  env: Readonly<Record<string, string>>;
  /** Toolchains mounted read-only at their own path (the orchestrator's Node, a `claude` install). */
  readOnlyPaths?: readonly string[];
  /** Extra writable directories (a worktree's git common dir, so `git commit` works inside). */
  writablePaths?: readonly string[];
  /** Mounted read-only over the writable ones: git config and hooks the orchestrator's own git would obey. */
  protectedPaths?: readonly string[];
  /** Working directory inside; default the workspace. */
  cwd?: string;
  /** Map to this uid/gid in a user namespace (65534 = nobody); undefined: no user namespace (setuid bwrap). */
  uid?: number;
  /** Upper bound on processes in the sandbox (fork bombs); enforced by a pids cgroup and RLIMIT_NPROC. */
  maxProcesses: number;
  /** Host directory layout (probeSystemLayout); default usr-merged Debian. */
  system?: SystemLayout;
}

/** The home directory inside: private, on the sandbox's own /tmp, gone when it exits. */
export const SANDBOX_HOME = '/tmp/home';
export const SANDBOX_UID = 65534;
export const DEFAULT_MAX_PROCESSES = 256;

/** Read-only system trees. /etc is not among them: only the files below. */
export const SYSTEM_DIRS = ['/usr'] as const;
/** Top-level links or directories of a usr-merged (or not) system. */
export const SYSTEM_ROOT_ENTRIES = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'] as const;
export const USR_MERGED: SystemLayout = { '/bin': { symlink: 'usr/bin' }, '/sbin': { symlink: 'usr/sbin' }, '/lib': { symlink: 'usr/lib' }, '/lib64': { symlink: 'usr/lib64' } };

/**
 * The parts of /etc programs need to run (dynamic linker cache, alternatives such as awk, users
 * and groups by name, time zone, TLS roots, git's system config). Never shadow, sudoers, ssh host
 * keys or anything else with secrets. Kept short: each entry is a mount on every Bash call (the
 * twenty of a first version cost 2 ms of bubblewrap's 8).
 */
export const ETC_FILES = [
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/localtime',
  '/etc/os-release',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/gitconfig',
] as const;
/** Name resolution and service names: only when the network is shared. */
export const ETC_NETWORK_FILES = ['/etc/resolv.conf', '/etc/hosts', '/etc/host.conf', '/etc/gai.conf', '/etc/protocols', '/etc/services'] as const;

/**
 * bubblewrap's argv (without `bwrap` itself) running `command` in the sandbox. Order matters:
 * later mounts cover earlier ones (the private /tmp before a worktree inside /tmp; protected
 * paths after the writable binds), and `--remount-ro /` last so nothing outside the binds and
 * /tmp can be created.
 */
export function bwrapArgs(policy: SandboxPolicy, command: readonly string[]): string[] {
  const a: string[] = ['--unshare-all'];
  if (policy.network) a.push('--share-net');
  if (policy.uid !== undefined) a.push('--unshare-user', '--uid', String(policy.uid), '--gid', String(policy.uid));
  a.push('--hostname', 'sandbox', '--die-with-parent', '--new-session', '--cap-drop', 'ALL');

  for (const dir of SYSTEM_DIRS) a.push('--ro-bind', dir, dir);
  const layout = policy.system ?? USR_MERGED;
  for (const entry of SYSTEM_ROOT_ENTRIES) {
    const kind = layout[entry];
    if (kind === undefined) continue;
    if (kind === 'dir') a.push('--ro-bind', entry, entry);
    else a.push('--symlink', kind.symlink, entry);
  }
  for (const f of ETC_FILES) a.push('--ro-bind-try', f, f);
  if (policy.network) for (const f of ETC_NETWORK_FILES) a.push('--ro-bind-try', f, f);

  a.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--dir', SANDBOX_HOME);
  for (const p of policy.readOnlyPaths ?? []) a.push('--ro-bind', p, p);

  switch (policy.workspaceAccess) {
    case 'rw':
      a.push('--bind', policy.workspace, policy.workspace);
      for (const p of policy.writablePaths ?? []) a.push('--bind', p, p);
      break;
    case 'ro':
      a.push('--ro-bind', policy.workspace, policy.workspace);
      for (const p of policy.writablePaths ?? []) a.push('--ro-bind', p, p);
      break;
    case 'none':
      // An empty private directory in its place: the command still starts there, sees nothing.
      a.push('--tmpfs', policy.workspace);
      break;
  }
  if (policy.workspaceAccess !== 'none') for (const p of policy.protectedPaths ?? []) a.push('--ro-bind', p, p);
  a.push('--remount-ro', '/');

  a.push('--clearenv');
  for (const [k, v] of Object.entries(policy.env).sort(([x], [y]) => x.localeCompare(y))) a.push('--setenv', k, v);
  a.push('--chdir', policy.cwd ?? policy.workspace, '--', ...command);
  return a;
}
