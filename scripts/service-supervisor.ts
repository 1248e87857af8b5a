import type { ChildProcess } from 'node:child_process';

export interface SupervisorOptions {
  name: string;
  /** Starts the service's process (again): the supervisor watches the child it returns. */
  spawn: () => ChildProcess;
  log: (message: string) => void;
  /** The wait before the first restart; it doubles with each crash in a row. Default 1 s. */
  baseDelayMs?: number;
  /** The longest wait between restarts, so a crash-looping service does not spin. Default 30 s. */
  maxDelayMs?: number;
  /** A run at least this long was healthy: the next crash waits the base delay again. Default 60 s. */
  stableAfterMs?: number;
  /** Last log lines of the child that died, for the restart message. */
  lastLines?: () => string[];
}

/** The wait before the n-th restart in a row (n >= 1): base, 2×base, 4×base… capped at max. */
export function restartDelayMs(crashesInARow: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(crashesInARow - 1, 0), 30));
}

/**
 * Keeps one service running under `npm start`: a child that exits while the platform is up (a crash,
 * a SIGKILL, the OOM killer) is started again after an exponential backoff, and the restart is
 * logged with the child's last lines. stop() ends the supervision: no restart after it.
 */
export class ServiceSupervisor {
  private current: ChildProcess;
  private crashesInARow = 0;
  private startedAt = Date.now();
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** Restarts so far. */
  restarts = 0;

  constructor(
    private readonly options: SupervisorOptions,
    first: ChildProcess,
  ) {
    this.current = first;
    this.watch(first);
  }

  get child(): ChildProcess {
    return this.current;
  }

  /** No more restarts (a pending one is cancelled); stopping the child is the caller's. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private watch(child: ChildProcess): void {
    if (child.exitCode !== null || child.signalCode !== null) {
      // It died before it was handed over: its exit event is gone.
      const why = child.signalCode ? `signal ${child.signalCode}` : `exit code ${child.exitCode}`;
      setImmediate(() => this.exited(child, why));
      return;
    }
    child.once('exit', (code, signal) => this.exited(child, signal ? `signal ${signal}` : `exit code ${code}`));
    child.once('error', (error) => this.exited(child, error.message)); // could not be spawned: no exit follows
  }

  private exited(child: ChildProcess, why: string): void {
    if (this.stopped || child !== this.current || this.timer) return;
    const { baseDelayMs = 1_000, maxDelayMs = 30_000, stableAfterMs = 60_000 } = this.options;
    this.crashesInARow = Date.now() - this.startedAt >= stableAfterMs ? 1 : this.crashesInARow + 1;
    const delay = restartDelayMs(this.crashesInARow, baseDelayMs, maxDelayMs);
    const lines = this.options.lastLines?.() ?? [];
    this.options.log(
      `${this.options.name} stopped unexpectedly (${why}); restarting in ${delay} ms (crash ${this.crashesInARow} in a row)` +
        (lines.length ? ` — last log lines:\n${lines.map((l) => `    ${l}`).join('\n')}` : ''),
    );
    this.timer = setTimeout(() => this.restart(), delay);
  }

  private restart(): void {
    this.timer = undefined;
    if (this.stopped) return;
    this.restarts++;
    this.startedAt = Date.now();
    this.current = this.options.spawn();
    this.watch(this.current);
    this.options.log(`${this.options.name} restarted (pid ${this.current.pid})`);
  }
}
