import { Injectable } from '@nestjs/common';
import { taskEvents } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';
import type { TaskEvent } from './task.decider';

/** `task_board`: one row per task, for listing and filtering (status, blocked, owner, metadata). */
@Injectable()
export class TaskBoardProjection extends Projection<RecordedEvent & TaskEvent> {
  /** `task_board`, qualified: the lease sweeper reads its candidates from it. */
  readonly table: string;

  constructor(store: EventStore) {
    super(store, { name: 'projection:task-board', types: taskEvents.filter((d) => d.category === 'task').map((d) => d.type), tables: ['task_board'] });
    this.table = this.qualified('task_board');
  }

  protected async apply(event: RecordedEvent & TaskEvent, tx: PoolClient): Promise<void> {
    const t = this.table;
    const v = event.streamVersion.toString();
    switch (event.type) {
      case 'task.created': {
        const d = event.data;
        await tx.query(
          `INSERT INTO ${t} (team, task_id, subject, description, active_form, status, depends_on, blocked_by, metadata, files, max_attempts, created_at, stream_version)
           SELECT $1, $2, $3, $4, $5, 'pending', $6::text[],
                  coalesce(array(SELECT dep FROM unnest($6::text[]) AS dep
                                  WHERE NOT EXISTS (SELECT 1 FROM ${t} b WHERE b.team = $1 AND b.task_id = dep AND b.status = 'completed')), '{}'),
                  $7::jsonb, $8::text[], $9, $10, $11`,
          [d.team, d.taskId, d.subject, d.description, d.activeForm ?? null, d.dependsOn, JSON.stringify(d.metadata), d.files, d.maxAttempts, d.createdAt, v],
        );
        break;
      }
      case 'task.claimed': {
        const d = event.data;
        await tx.query(
          `UPDATE ${t} SET status = 'claimed', owner = $3, active_form = coalesce($4, active_form), attempts = $5,
                  lease_expires_at = $6, claimed_at = $7, stream_version = $8 WHERE team = $1 AND task_id = $2`,
          [d.team, d.taskId, d.owner, d.activeForm ?? null, d.attempt, d.leaseExpiresAt, d.claimedAt, v],
        );
        break;
      }
      case 'task.heartbeat': {
        const d = event.data;
        await tx.query(
          `UPDATE ${t} SET active_form = coalesce($3, active_form), lease_expires_at = $4, stream_version = $5 WHERE team = $1 AND task_id = $2`,
          [d.team, d.taskId, d.activeForm ?? null, d.leaseExpiresAt, v],
        );
        break;
      }
      case 'task.lease-expired':
      case 'task.released': {
        const d = event.data;
        const failure = {
          attempt: d.attempt,
          owner: d.owner,
          reason: event.type === 'task.released' ? event.data.reason : 'lease expired',
          at: event.type === 'task.released' ? event.data.releasedAt : event.data.expiredAt,
        };
        await tx.query(
          `UPDATE ${t} SET status = 'pending', owner = NULL, lease_expires_at = NULL, claimed_at = NULL,
                  failed_approaches = failed_approaches || jsonb_build_array($4::jsonb), stream_version = $3
            WHERE team = $1 AND task_id = $2`,
          [d.team, d.taskId, v, JSON.stringify(failure)],
        );
        break;
      }
      case 'task.escalated':
        await tx.query(`UPDATE ${t} SET status = 'escalated', stream_version = $3 WHERE team = $1 AND task_id = $2`, [event.data.team, event.data.taskId, v]);
        break;
      case 'task.completed': {
        const d = event.data;
        await tx.query(
          `UPDATE ${t} SET status = 'completed', lease_expires_at = NULL, completed_at = $3, stream_version = $4 WHERE team = $1 AND task_id = $2`,
          [d.team, d.taskId, d.completedAt, v],
        );
        // Dependents auto-unblock: the completed task leaves their blockedBy.
        await tx.query(`UPDATE ${t} SET blocked_by = array_remove(blocked_by, $2) WHERE team = $1 AND $2 = ANY (blocked_by)`, [d.team, d.taskId]);
        break;
      }
    }
  }
}
