import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { EventStore } from '@headspace/event-store';
import { PG_POOL } from '@headspace/platform';
import type { Pool } from 'pg';
import { TaskBoardProjection } from './task-board.projection';
import { taskDecider } from './task.decider';
import { loadTask, TASK_SETTINGS, type TaskSettings, } from './task-streams';

/**
 * Returns expired claims to the queue. A timer (every replica runs one): the board says which
 * claims look expired; each is then decided against its task stream (a heartbeat may have won) and
 * `task.lease-expired` (+ `task.escalated` on the last allowed attempt) is appended at the stream's
 * exact version. The command id is derived from the stream and version, so two replicas sweeping the
 * same lease append it once (the loser's append is a replay). It sleeps until the earliest lease on
 * the board runs out, at most TASK_LEASE_SWEEP_MS.
 */
@Injectable()
export class LeaseSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('LeaseSweeper');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  /** Leases this instance returned to the queue (tests, metrics). */
  expired = 0;

  constructor(
    private readonly store: EventStore,
    @Inject(TASK_SETTINGS) private readonly settings: TaskSettings,
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly board: TaskBoardProjection,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule(this.settings.TASK_LEASE_SWEEP_MS);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sweep()
        .catch((error) => {
          this.logger.warn(`lease sweep: ${(error as Error).message}`);
          return this.settings.TASK_LEASE_SWEEP_MS;
        })
        .then((next) => this.schedule(next));
    }, ms);
    this.timer.unref();
  }

  /** One pass; returns the delay until the next. */
  async sweep(): Promise<number> {
    const now = new Date();
    const { rows } = await this.pool.query<{ team: string; task_id: string }>(
      `SELECT team, task_id FROM ${this.board.table} WHERE status = 'claimed' AND lease_expires_at <= $1 ORDER BY lease_expires_at LIMIT 100`,
      [now],
    );
    for (const row of rows) {
      if (this.stopped) break;
      await this.expire(row.team, row.task_id, now.toISOString()).catch((error) =>
        this.logger.warn(`lease expiry of ${row.team}/${row.task_id}: ${(error as Error).message}`),
      );
    }
    const next = await this.pool.query<{ next: Date | null }>(`SELECT min(lease_expires_at) AS next FROM ${this.board.table} WHERE status = 'claimed'`);
    const until = next.rows[0].next ? next.rows[0].next.getTime() - Date.now() : Infinity;
    return Math.max(10, Math.min(this.settings.TASK_LEASE_SWEEP_MS, until));
  }

  private async expire(team: string, taskId: string, now: string): Promise<void> {
    const task = await loadTask(this.store, team, taskId);
    const events = taskDecider.decide({ type: 'expire-lease', now }, task.state);
    if (events.length === 0) return;
    const commandId = `lease-expiry:${task.streamId}:${task.version}`;
    const result = await this.store.append(task.streamId, events, { expected: task.version, commandId, metadata: { causationId: commandId } }).catch((error) => {
      if ((error as { code?: string }).code === 'EVENTSTORE.WRONG_EXPECTED_VERSION') return null; // a heartbeat or another sweeper won
      throw error;
    });
    if (result && !result.replayed) this.expired++;
  }
}
