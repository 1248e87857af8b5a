import { ErrorCodes, getLearning, HeadspaceError, learningIdSchema, recordLearning, searchLearnings, teamNameSchema } from '@headspace/contracts';
import { z } from 'zod';
import { commandRoute, queryRoute, type ApiRoute } from './api-route';

const tag = 'learnings';

export const learningRoutes: ApiRoute[] = [
  commandRoute(recordLearning, {
    operationId: 'recordLearning',
    path: '/api/v1/teams/:team/learnings',
    tag,
    summary: 'Add a learning by hand (pattern, resolution, category, project, persona, confidence); sessions of the team retrieve it when relevant',
    status: 201,
  }),
  queryRoute(searchLearnings, {
    operationId: 'searchLearnings',
    path: '/api/v1/teams/:team/learnings',
    tag,
    summary: 'Learnings of the team ranked by full-text relevance to `q` (web-search syntax) times confidence, with their scores; filtered by project and persona',
    query: z.object({
      q: z.string().trim().min(1).max(2_000).optional(),
      project: z.string().trim().min(1).max(200).optional(),
      persona: z.string().optional(),
      limit: z.coerce.number().int().min(1).max(200).optional(),
    }),
  }),
  queryRoute(getLearning, {
    operationId: 'getLearning',
    path: '/api/v1/teams/:team/learnings/:learningId',
    tag,
    summary: 'One learning: pattern, resolution, confidence, source, and how many sessions given it completed or failed',
    request: z.object({ team: teamNameSchema, learningId: learningIdSchema }),
    call: async (input: { learningId: string }, ctx) => {
      const learning = await ctx.send(getLearning, { learningId: input.learningId });
      if (learning.team !== ctx.params.team) throw new HeadspaceError(ErrorCodes.learningNotFound, `No learning ${input.learningId} in team ${ctx.params.team}`, { field: 'learningId' });
      return learning;
    },
  }),
];
