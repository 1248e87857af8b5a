import { BOARD_MAX_TASKS, boardQuerySchema, boardSchema, listTasks, type BoardCard } from '@headspace/contracts';
import { z } from 'zod';
import { queryRoute, type ApiRoute } from './api-route';

type Listed = z.output<typeof listTasks.response>;

/**
 * The task board in one request (the dashboard's board view): every task as a card, up to 1,000,
 * instead of pages of 500 full task views. One list-tasks query; the cards leave out what a board
 * does not show (descriptions, metadata, failed approaches), so the answer is small to send and parse.
 */
export const boardRoutes: ApiRoute[] = [
  queryRoute(listTasks, {
    operationId: 'getTaskBoard',
    path: '/api/v1/teams/:team/board',
    tag: 'tasks',
    summary: 'The task board in one answer: up to `limit` (≤ 1,000, default 1,000) tasks as cards, oldest first; `limited` when newer ones may be left out',
    query: boardQuerySchema,
    response: boardSchema,
    // The dispatcher keeps `limit` out of `query` (it pages list routes by it); here it is the query's size.
    // The query string was validated against `boardQuerySchema` already (a bad limit is a 400 naming it).
    build: ({ params, rawQuery }) => ({ limit: boardQuerySchema.parse(rawQuery).limit, ...params }),
    call: async (input: z.input<typeof listTasks.request>, ctx) => {
      const { tasks } = (await ctx.send(listTasks, input)) as Listed;
      const cards = tasks.map(
        ({ taskId, subject, status, owner, dependsOn, blocked, attempts, maxAttempts, leaseExpiresAt, createdAt }): BoardCard => ({
          taskId,
          subject,
          status,
          owner,
          dependsOn,
          blocked,
          attempts,
          maxAttempts,
          leaseExpiresAt,
          createdAt,
        }),
      );
      return { tasks: cards, limited: cards.length >= (input.limit ?? BOARD_MAX_TASKS) };
    },
  }),
];
