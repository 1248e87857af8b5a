import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { raw, type QBFilterQuery } from '@mikro-orm/postgresql';
import { listTasks, type TaskView } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { TaskBoardEntry } from '../task-board.entity';

/** `list-tasks`: the team's board with filters (status, blocked, owner, metadata containment, file, task ids). */
@Controller()
export class ListTasksHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listTasks)
  async handle(@Payload() request: z.output<typeof listTasks.request>): Promise<{ tasks: TaskView[] }> {
    const { team, status, owner, metadata, file, taskIds, blocked, limit } = request;
    const blockers = raw('cardinality(blocked_by)');
    const where: QBFilterQuery<TaskBoardEntry>[] = [
      { team },
      ...(status ? [{ status }] : []),
      ...(owner ? [{ owner }] : []),
      ...(metadata ? [{ metadata: { $contains: metadata } }] : []),
      ...(file ? [{ files: { $contains: [file] } }] : []),
      ...(taskIds ? [{ taskId: { $in: taskIds } }] : []),
      ...(blocked === true ? [{ status: 'pending' as const, [blockers]: { $gt: 0 } }] : []),
      ...(blocked === false ? [{ [blockers]: 0 }] : []),
    ];
    const rows = await this.reads.rows(TaskBoardEntry, { $and: where }, { orderBy: [{ createdAt: 'asc' }, { taskId: 'asc' }], limit });
    return { tasks: rows.map(toView) };
  }
}

export function toView(row: TaskBoardEntry): TaskView {
  const { taskId, subject, description, activeForm, status, owner, dependsOn, blockedBy, metadata, files, failedApproaches, attempts, maxAttempts } = row;
  return {
    taskId,
    subject,
    description,
    activeForm: activeForm ?? null,
    status,
    owner: owner ?? null,
    dependsOn,
    blockedBy,
    blocked: status === 'pending' && blockedBy.length > 0,
    metadata,
    files,
    failedApproaches,
    attempts,
    maxAttempts,
    leaseExpiresAt: row.leaseExpiresAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}
