import { Inject, Injectable } from '@nestjs/common';
import { EventStore } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA, Sweeper } from '@headspace/platform';
import type { Pool } from 'pg';
import { TaskBoardProjection } from './task-board.projection';
import { taskDecider } from './task.decider';
import { loadTask, TASK_SETTINGS, type TaskSettings, } from './task-streams';

/**
 * Returns expired claims to the queue, on the replica holding the sweep lease: the board says which
 * claims look expired; each is then decided against its task stream (a heartbeat may have won) and
 * `task.lease-expired` (+ `task.escalated` on the last allowed attempt) is appended at the stream's
 * exact version. The command id is derived from the stream and version, so two passes over the
 * same lease append it once (the later append is a replay). It sleeps until the earliest lease on
 * the board runs out, at most TASK_LEASE_SWEEP_MS.
 */
@Injectable()
export class LeaseSweeper extends Sweeper {
  /** Leases this instance returned to the queue (tests, metrics). */
  expired = 0;

  constructor(
    private readonly store: EventStore,
    @Inject(TASK_SETTINGS) private readonly settings: TaskSettings,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
    private readonly board: TaskBoardProjection,
  ) {
    super(pool, schema, { name: 'task-leases', intervalMs: settings.TASK_LEASE_SWEEP_MS });
  }

  /** One pass; returns the delay until the next. */
  protected async sweep(): Promise<number> {
    const now = new Date();
    const { rows } = await this.pool.query<{ team: string; task_id: string }>(
      `SELECT team, task_id FROM ${this.board.table} WHERE status = 'claimed' AND lease_expires_at <= $1 ORDER BY lease_expires_at LIMIT 100`,
      [now],
    );
    for (const row of rows) {
      if (this.stopping) break;
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
