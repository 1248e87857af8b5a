import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { TaskView } from '@headspace/contracts';

/** A row of `task_board` (task-board.projection.ts writes it; migrations/0001_task_board.sql). */
export const TaskBoardEntry = defineEntity({
  name: 'TaskBoardEntry',
  tableName: 'task_board',
  properties: {
    team: p.text().primary(),
    taskId: p.text().primary(),
    subject: p.text(),
    description: p.text(),
    activeForm: p.text().nullable(),
    status: p.text().$type<TaskView['status']>(),
    owner: p.text().nullable(),
    dependsOn: p.array(),
    blockedBy: p.array(),
    metadata: p.json<Record<string, unknown>>(),
    files: p.array(),
    failedApproaches: p.json<TaskView['failedApproaches']>(),
    attempts: p.integer(),
    maxAttempts: p.integer(),
    leaseExpiresAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    claimedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    streamVersion: p.bigint('string'),
  },
});
export type TaskBoardEntry = InferEntity<typeof TaskBoardEntry>;
