import { ErrorCodes, getRun, getRunDiff, HeadspaceError, runIdSchema, teamNameSchema } from '@headspace/contracts';
import { z } from 'zod';
import { queryRoute, type ApiRoute } from './api-route';

const request = z.object({ team: teamNameSchema, runId: runIdSchema, commit: getRunDiff.request.shape.commit });

/** Read-only: what one merge of a run changed (the run view's diffs). */
export const runDiffRoutes: ApiRoute[] = [
  queryRoute(getRunDiff, {
    operationId: 'getRunDiff',
    path: '/api/v1/teams/:team/runs/:runId/diff',
    tag: 'runs',
    summary: 'The diff of one of the run’s merge commits (`?commit=`, as `run.task-merged` named it), with per-file line counts',
    query: z.object({ commit: getRunDiff.request.shape.commit }),
    request,
    call: async ({ team, runId, commit }: z.output<typeof request>, ctx) => {
      const run = await ctx.send(getRun, { runId });
      if (run.team !== team) throw new HeadspaceError(ErrorCodes.runNotFound, `No run ${runId} in team ${team}`, { field: 'runId' });
      return ctx.send(getRunDiff, { runId, commit });
    },
  }),
];
