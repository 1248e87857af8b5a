import { execFile } from 'node:child_process';
import { constants, lstatSync, readlinkSync } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { findPidsCgroupRoot, pidsCgroupsWork } from './pids-cgroup';
import { bwrapArgs, DEFAULT_MAX_PROCESSES, SANDBOX_UID, SYSTEM_ROOT_ENTRIES, type SystemLayout } from './sandbox-policy';
import { sandboxEnv } from './sandbox-env';

/** Whether sandboxes can be made here, and with what; `reason` says why not (shown to the operator). */
export type SandboxAvailability =
  | {
      available: true;
      bwrap: string;
      version: string;
      /** A user namespace maps the sandbox to uid 65534; false with a setuid bwrap that cannot make one. */
      userNamespace: boolean;
      /** How fork bombs are bounded: a pids cgroup per call, RLIMIT_NPROC (non-root only), or not at all. */
      pidsLimit: 'cgroup' | 'rlimit' | 'none';
      pidsCgroupRoot?: string;
      prlimit?: string;
      system: SystemLayout;
    }
  | { available: false; reason: string };

export interface AvailabilityOptions {
  /** bwrap executable; default the first `bwrap` on PATH. */
  bwrap?: string;
  /** cgroup directory to make pids cgroups under; default found under /sys/fs/cgroup. */
  pidsCgroupRoot?: string;
}

function run(file: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, timeout: 10_000, env: { PATH: '/usr/bin:/bin' } }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 127) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr || (error && code === 127 ? error.message : '')) });
    });
  });
}

export function findBwrap(path = process.env.PATH ?? ''): Promise<string | undefined> {
  return findExecutable('bwrap', path);
}

async function findExecutable(name: string, path = process.env.PATH ?? ''): Promise<string | undefined> {
  for (const dir of [...path.split(delimiter).filter(Boolean), '/usr/bin', '/usr/local/bin']) {
    const candidate = join(dir, name);
    if (await access(candidate, constants.X_OK).then(() => true, () => false)) return candidate;
  }
  return undefined;
}

/** The host's /bin, /lib… as they are: usr-merged links are recreated as links, real directories bound. */
export function probeSystemLayout(): SystemLayout {
  const layout: Record<string, { symlink: string } | 'dir'> = {};
  for (const entry of SYSTEM_ROOT_ENTRIES) {
    try {
      const st = lstatSync(entry);
      if (st.isSymbolicLink()) layout[entry] = { symlink: readlinkSync(entry) };
      else if (st.isDirectory()) layout[entry] = 'dir';
    } catch {
      /* absent here */
    }
  }
  return layout;
}

/**
 * Runs bubblewrap once with the real policy shape (every namespace, a read-only system, a
 * writable scratch worktree) and reports whether it works and why not. Tries a user namespace
 * mapped to uid 65534 first, then without one (a setuid bwrap on a host that forbids them).
 */
export async function sandboxAvailability(options: AvailabilityOptions = {}): Promise<SandboxAvailability> {
  const bwrap = options.bwrap ?? (await findBwrap());
  if (!bwrap) return { available: false, reason: 'bubblewrap (bwrap) is not installed; install the Debian/Ubuntu package "bubblewrap" (npm start does when it runs as root)' };
  if (!(await access(bwrap, constants.X_OK).then(() => true, () => false))) return { available: false, reason: `${bwrap} is not an executable file (bubblewrap not installed there?)` };
  const version = await run(bwrap, ['--version'], '/');
  if (version.code !== 0) return { available: false, reason: `${bwrap} --version failed: ${version.stderr.trim() || `exit ${version.code}`}` };
  const system = probeSystemLayout();
  const scratch = await mkdtemp(join(tmpdir(), 'hs-sandbox-probe-'));
  try {
    const failures: string[] = [];
    for (const uid of [SANDBOX_UID, undefined]) {
      const policy = { workspace: scratch, workspaceAccess: 'rw' as const, network: false, env: sandboxEnv({}), uid, maxProcesses: DEFAULT_MAX_PROCESSES, system };
      const probe = await run(bwrap, bwrapArgs(policy, ['/bin/sh', '-c', 'echo probe > probe.txt && cat probe.txt']), '/');
      if (probe.code === 0 && probe.stdout.trim() === 'probe') {
        const cgroupRoot = findPidsCgroupRoot(options.pidsCgroupRoot);
        const cgroups = cgroupRoot !== undefined && (await pidsCgroupsWork(cgroupRoot));
        const prlimit = cgroups || process.getuid?.() === 0 ? undefined : await findExecutable('prlimit');
        const pidsLimit = cgroups ? 'cgroup' : prlimit ? 'rlimit' : 'none';
        return { available: true, bwrap, version: version.stdout.trim(), userNamespace: uid !== undefined, pidsLimit, ...(cgroups ? { pidsCgroupRoot: cgroupRoot } : {}), ...(prlimit ? { prlimit } : {}), system };
      }
      failures.push(`${uid === undefined ? 'without' : 'with'} a user namespace: ${probe.stderr.trim() || `exit ${probe.code}`}`);
    }
    return { available: false, reason: `bubblewrap cannot create a sandbox here (${failures.join('; ')}); in a container, allow user namespaces or run with --privileged` };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

const probes = new Map<string, Promise<SandboxAvailability>>();

/** sandboxAvailability, probed once per process (per options). */
export function sandboxAvailabilityOnce(options: AvailabilityOptions = {}): Promise<SandboxAvailability> {
  const key = JSON.stringify(options);
  let p = probes.get(key);
  if (!p) probes.set(key, (p = sandboxAvailability(options)));
  return p;
}
