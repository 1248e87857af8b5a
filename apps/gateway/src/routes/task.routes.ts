import {
  claimTask,
  completeTask,
  createTask,
  createTasks,
  heartbeatTask,
  listTasks,
  pageQuerySchema,
  releaseTask,
  taskOwnerSchema,
  taskStatusSchema,
} from '@headspace/contracts';
import { z } from 'zod';
import { commandRoute, queryRoute, type ApiRoute, type RequestParts } from './api-route';

const tag = 'tasks';
const METADATA_PREFIX = 'metadata.';

/** `?metadata.area=backend&metadata.size=3` → `{ area: 'backend', size: '3' }` (string values). */
function metadataFilter(rawQuery: RequestParts['rawQuery']): Record<string, unknown> | undefined {
  const entries = Object.entries(rawQuery).filter(([k]) => k.startsWith(METADATA_PREFIX));
  if (entries.length === 0) return undefined;
  return Object.fromEntries(entries.map(([k, v]) => [k.slice(METADATA_PREFIX.length), v]));
}

const taskQuery = pageQuerySchema.extend({
  status: taskStatusSchema.optional(),
  /** true: only tasks waiting on dependencies; false: only unblocked ones. */
  blocked: z.stringbool().optional(),
  owner: taskOwnerSchema.optional(),
  file: z.string().min(1).max(500).optional(),
  /** Comma-separated task ids (at most 100): just those tasks. */
  ids: z.string().min(1).max(20_000).optional(),
});

const taskAction = (definition: Parameters<typeof commandRoute>[0], action: string, summary: string) =>
  commandRoute(definition, {
    operationId: `${action}Task`,
    path: `/api/v1/teams/:team/tasks/:taskId/${action}`,
    tag,
    summary,
  });

export const taskRoutes: ApiRoute[] = [
  commandRoute(createTask, {
    operationId: 'createTask',
    path: '/api/v1/teams/:team/tasks',
    tag,
    summary: 'Add one task (with dependencies on existing tasks)',
    status: 201,
  }),
  commandRoute(createTasks, {
    operationId: 'createTasks',
    path: '/api/v1/teams/:team/tasks/batch',
    tag,
    summary: 'Add many tasks at once; they may depend on each other (a cycle refuses the batch)',
    status: 201,
  }),
  queryRoute(listTasks, {
    operationId: 'listTasks',
    path: '/api/v1/teams/:team/tasks',
    tag,
    summary: 'The task list, filtered by status, blocked, owner, file, ids (comma-separated) and metadata.<key>=<value>',
    query: taskQuery,
    build: ({ params, query: { ids, ...query }, rawQuery }) => ({
      ...query,
      ...(typeof ids === 'string' ? { taskIds: ids.split(',') } : {}),
      metadata: metadataFilter(rawQuery),
      limit: 1_000,
      ...params,
    }),
    list: { field: 'tasks', key: (t: { createdAt: string; taskId: string }) => `${t.createdAt}|${t.taskId}` },
  }),
  taskAction(claimTask, 'claim', 'Claim a pending, unblocked task (optionally at an expected stream version)'),
  taskAction(heartbeatTask, 'heartbeat', "Extend the owner's lease"),
  taskAction(releaseTask, 'release', 'Give the task back as a failed attempt'),
  taskAction(completeTask, 'complete', 'Complete the task'),
];
