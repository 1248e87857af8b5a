import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { listTasks, type TaskView } from '@headspace/contracts';
import { serveRequests, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION, PG_POOL } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';
import type { z } from 'zod';
import { TaskBoardProjection, type TaskBoardRow } from '../task-board.projection';

/** `list-tasks`: the team's board with filters (status, blocked, owner, metadata containment, file, task ids). */
@Injectable()
export class ListTasksHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: RequestServer;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly board: TaskBoardProjection,
  ) {}

  onApplicationBootstrap(): void {
    this.server = serveRequests(this.nc, listTasks, (request) => this.handle(request));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }

  async handle(request: z.output<typeof listTasks.request>): Promise<{ tasks: TaskView[] }> {
    const where = ['team = $1'];
    const values: unknown[] = [request.team];
    const add = (sql: (p: string) => string, value: unknown) => {
      values.push(value);
      where.push(sql(`$${values.length}`));
    };
    if (request.status) add((p) => `status = ${p}`, request.status);
    if (request.owner) add((p) => `owner = ${p}`, request.owner);
    if (request.metadata) add((p) => `metadata @> ${p}::jsonb`, JSON.stringify(request.metadata));
    if (request.file) add((p) => `files @> ARRAY[${p}]::text[]`, request.file);
    if (request.taskIds) add((p) => `task_id = ANY (${p}::text[])`, request.taskIds);
    if (request.blocked === true) where.push(`status = 'pending' AND cardinality(blocked_by) > 0`);
    if (request.blocked === false) where.push(`cardinality(blocked_by) = 0`);
    values.push(request.limit);
    const { rows } = await this.pool.query<TaskBoardRow>(
      `SELECT * FROM ${this.board.table} WHERE ${where.join(' AND ')} ORDER BY created_at, task_id LIMIT $${values.length}`,
      values,
    );
    return { tasks: rows.map(toView) };
  }
}

export function toView(row: TaskBoardRow): TaskView {
  return {
    taskId: row.task_id,
    subject: row.subject,
    description: row.description,
    activeForm: row.active_form,
    status: row.status,
    owner: row.owner,
    dependsOn: row.depends_on,
    blockedBy: row.blocked_by,
    blocked: row.status === 'pending' && row.blocked_by.length > 0,
    metadata: row.metadata,
    files: row.files,
    failedApproaches: row.failed_approaches,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    leaseExpiresAt: row.lease_expires_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at?.toISOString() ?? null,
  };
}
