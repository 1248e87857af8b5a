import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { createPidsCgroup, type PidsCgroup } from './pids-cgroup';

/**
 * Moving a process into a cgroup v1 waits for an RCU grace period: 5–30 ms on a busy host, most of
 * a sandboxed call's cost. So the wrapper that joins the call's pids cgroup is started ahead of
 * the call: it joins, then waits for its argv on fd 3 and becomes bubblewrap. A call takes the
 * waiting wrapper and leaves the next one starting; its cgroup was the spare's own, made for it.
 */
// bash, not sh, for `mapfile -d ""`; --norc because bash reads ~/.bashrc when its stdin is a socket.
const JOIN_THEN_WAIT = 'echo $$ > "$1" || exit 125; mapfile -d "" -u 3 argv; exec 3<&-; [ ${#argv[@]} -gt 0 ] || exit 125; exec "${argv[@]}"';

export interface WarmWrapper {
  child: ChildProcess;
  cgroup: PidsCgroup;
  /** Starts `argv` (bubblewrap and its arguments) in the waiting wrapper. */
  exec(argv: readonly string[]): void;
}

const spares = new Map<string, WarmWrapper>();
const handles = (child: ChildProcess) => child.stdio.filter((s): s is Readable | Writable => s !== null) as unknown as Array<{ ref(): void; unref(): void }>;

async function startWrapper(root: string, maxProcesses: number, env: Record<string, string>): Promise<WarmWrapper> {
  const cgroup = await createPidsCgroup(root, maxProcesses);
  const child = spawn('/bin/bash', ['--norc', '--noprofile', '-c', JOIN_THEN_WAIT, 'sandbox', cgroup.procsFile], {
    cwd: '/',
    env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
  });
  child.on('error', () => undefined);
  // A spare waiting for a call does not keep the process alive.
  child.unref();
  for (const h of handles(child)) h.unref?.();
  return {
    child,
    cgroup,
    exec(argv) {
      for (const h of handles(child)) h.ref?.();
      child.ref();
      const argvPipe = child.stdio[3] as Writable;
      argvPipe.on('error', () => undefined);
      argvPipe.end(Buffer.from(argv.map((a) => `${a}\0`).join('')));
    },
  };
}

const alive = (w: WarmWrapper) => w.child.exitCode === null && w.child.signalCode === null && w.child.pid !== undefined;

/** A wrapper already in its own pids cgroup, waiting; the next one is started for the next call. */
export async function takeWarmWrapper(root: string, maxProcesses: number, env: Record<string, string>): Promise<WarmWrapper> {
  const key = `${root}\0${maxProcesses}`;
  const spare = spares.get(key);
  spares.delete(key);
  const prepareNext = () =>
    startWrapper(root, maxProcesses, env).then(
      (next) => {
        if (spares.has(key)) return discard(next);
        spares.set(key, next);
      },
      () => undefined,
    );
  if (spare && alive(spare)) {
    setImmediate(prepareNext);
    return spare;
  }
  if (spare) void spare.cgroup.remove().catch(() => undefined);
  const wrapper = await startWrapper(root, maxProcesses, env);
  setImmediate(prepareNext);
  return wrapper;
}

function discard(w: WarmWrapper): void {
  try {
    w.child.kill('SIGKILL');
  } catch {
    /* gone */
  }
  w.child.once('exit', () => void w.cgroup.remove().catch(() => undefined));
}

process.once('exit', () => {
  for (const w of spares.values()) {
    try {
      w.child.kill('SIGKILL');
    } catch {
      /* gone */
    }
  }
});
