import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { Pool } from 'pg';
import { SweeperLease } from './sweeper-lease';

export interface SweeperOptions {
  /** Unique within the service's schema: it keys the lease. */
  name: string;
  /** The pause between two passes (a pass may ask for a shorter one). */
  intervalMs: number;
  /** How long a holder that stopped without releasing keeps the others out (default: 10 s, at least three intervals). */
  leaseMs?: number;
  instanceId?: string;
}

/**
 * A periodic pass over what has come due (expired task leases, approvals past their timeout, …),
 * started on bootstrap and stopped on shutdown. Across replicas one instance sweeps at a time: each
 * pass first takes or renews a lease, and the others skip theirs. A stop releases the lease, so
 * another instance takes over on its next tick; a crashed holder's lease runs out after `leaseMs`.
 *
 * The lease is a row of the checkpoints table rather than a PostgreSQL advisory lock: a session
 * lock would pin a pooled connection per sweeper for the life of the process and vanish silently
 * when that connection drops (a PostgreSQL restart), and the row is where processor leases are
 * already kept and inspected. The lease saves work, it is not what makes a sweep correct: every
 * decision is still taken against its stream at an exact version with a derived command id, so a
 * pass that outlives its lease and overlaps the next holder's appends each outcome once.
 */
export abstract class Sweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  protected readonly logger: Logger;
  protected readonly intervalMs: number;
  private readonly lease: SweeperLease;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = true;
  /** Passes this instance made as the lease holder (specs wait on it). */
  passes = 0;

  protected constructor(pool: Pool, schema: string, options: SweeperOptions) {
    this.logger = new Logger(options.name);
    this.intervalMs = options.intervalMs;
    const leaseMs = options.leaseMs ?? Math.max(10_000, 3 * options.intervalMs);
    const owner = options.instanceId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.lease = new SweeperLease(pool, schema, `sweeper:${options.name}`, owner, leaseMs);
  }

  /** One pass as the lease holder; may return how long to wait before the next (default `intervalMs`). */
  protected abstract sweep(): Promise<number | void>;

  /** Whether this instance held the lease at its last tick. */
  get isSweeping(): boolean {
    return this.lease.isHeld;
  }

  /** True once a stop was asked: a long pass checks it between items. */
  protected get stopping(): boolean {
    return this.stopped;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(this.intervalMs);
  }

  /** Lets the pass in hand finish, then releases the lease. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.lease.release().catch((error: Error) => this.logger.warn(`releasing the sweep lease: ${error.message}`));
  }

  onApplicationBootstrap(): void {
    this.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.stop();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().then((next) => this.schedule(next));
    }, ms);
    this.timer.unref();
  }

  private async tick(): Promise<number> {
    try {
      if (!(await this.lease.acquire())) return this.intervalMs;
      const next = await this.sweep();
      this.passes++;
      return typeof next === 'number' ? next : this.intervalMs;
    } catch (error) {
      this.logger.warn(`sweep failed: ${(error as Error).message}`);
      return this.intervalMs;
    }
  }
}
