import { z } from 'zod';
import { taskViewSchema } from '../team-manager/task.contracts';

/** The most tasks one board answer holds: team-manager's largest list-tasks page. */
export const BOARD_MAX_TASKS = 1_000;

/** `GET /api/v1/teams/{team}/board?limit=`: how many tasks (oldest first), 1–1,000, default 1,000. */
export const boardQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(BOARD_MAX_TASKS).default(BOARD_MAX_TASKS),
});

/** One card of the task board: what the board shows of a task (no description, metadata or history). */
export const boardCardSchema = taskViewSchema.pick({
  taskId: true,
  subject: true,
  status: true,
  owner: true,
  dependsOn: true,
  blocked: true,
  attempts: true,
  maxAttempts: true,
  leaseExpiresAt: true,
  createdAt: true,
});
export type BoardCard = z.output<typeof boardCardSchema>;

/** The whole board in one answer. `limited`: it holds `limit` tasks, so newer ones may be left out. */
export const boardSchema = z.object({
  tasks: z.array(boardCardSchema),
  limited: z.boolean(),
});
