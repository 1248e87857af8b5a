import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A fork bomb must not take the host down. RLIMIT_NPROC is not enforced for processes whose real
 * uid is root (the kernel exempts INIT_USER even inside a user namespace), so when the orchestrator
 * runs as root the limit comes from a pids cgroup: one per sandboxed call, `pids.max` set, the
 * wrapper shell joins it before exec'ing bubblewrap, so every descendant is counted.
 */
export interface PidsCgroup {
  /** `cgroup.procs` the wrapper writes its pid into. */
  procsFile: string;
  /** Kills what is left in it and removes it (retries while the kernel is still reaping). */
  remove(): Promise<void>;
}

const PARENT = 'headspace-sandbox';

/** Where pids cgroups can be made here: cgroup v2 with the pids controller, or the v1 pids hierarchy. */
export function findPidsCgroupRoot(override?: string): string | undefined {
  if (override) return override;
  try {
    const controllers = readFileSync('/sys/fs/cgroup/cgroup.controllers', 'utf8');
    if (controllers.split(/\s+/).includes('pids')) return '/sys/fs/cgroup';
  } catch {
    /* not cgroup v2 at the root */
  }
  try {
    readFileSync('/sys/fs/cgroup/pids/cgroup.procs', 'utf8');
    return '/sys/fs/cgroup/pids';
  } catch {
    return undefined;
  }
}

/** True when a child cgroup can be made and limited under `root` (needs write access: root, or delegation). */
export async function pidsCgroupsWork(root: string): Promise<boolean> {
  const probe = await createPidsCgroup(root, 8, `probe-${process.pid}`).catch(() => undefined);
  if (!probe) return false;
  await probe.remove();
  return true;
}

let counter = 0;
/** The shared parent is set up once per root (this runs on every Bash call). */
const parents = new Map<string, Promise<string>>();

function parentOf(root: string): Promise<string> {
  let p = parents.get(root);
  if (!p) {
    p = (async () => {
      const parent = join(root, PARENT);
      await mkdir(parent, { recursive: true });
      // cgroup v2: a child can only use the pids controller once its parent delegates it.
      await writeFile(join(parent, 'cgroup.subtree_control'), '+pids').catch(() => undefined);
      await removeStale(parent);
      return parent;
    })();
    p.catch(() => parents.delete(root));
    parents.set(root, p);
  }
  return p;
}

/** Cgroups left by processes that died before removing them (a killed orchestrator, a spare wrapper). */
async function removeStale(parent: string): Promise<void> {
  const entries = await readdir(parent).catch(() => [] as string[]);
  for (const name of entries) {
    const pid = Number(/^call-(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid || isRunning(pid)) continue;
    await rmdir(join(parent, name)).catch(() => undefined); // not empty: something still runs there
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function createPidsCgroup(root: string, maxProcesses: number, name = `call-${process.pid}-${++counter}`): Promise<PidsCgroup> {
  const dir = join(await parentOf(root), name);
  // Synchronous: microsecond writes to cgroupfs, on every Bash call; the thread pool's hops cost more.
  mkdirSync(dir);
  try {
    writeFileSync(join(dir, 'pids.max'), String(maxProcesses));
  } catch (error) {
    rmdirSync(dir);
    throw error;
  }
  return { procsFile: join(dir, 'cgroup.procs'), remove: () => removeCgroup(dir) };
}

async function removeCgroup(dir: string): Promise<void> {
  try {
    rmdirSync(dir); // empty already: the sandbox's PID namespace died with bubblewrap
    return;
  } catch {
    /* still reaping, or something escaped the namespace: kill and retry below */
  }
  for (let attempt = 0; attempt < 50; attempt++) {
    const pids = (await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map(Number);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    try {
      await rmdir(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code !== 'EBUSY') throw error;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
