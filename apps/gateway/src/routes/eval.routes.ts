import { compareEvalRuns, ErrorCodes, evalRunIdSchema, getEvalRun, HeadspaceError, listEvalRuns, pageQuerySchema, startEvalRun, teamNameSchema } from '@headspace/contracts';
import { z } from 'zod';
import { commandRoute, queryRoute, type ApiRoute, type CallContext } from './api-route';

const tag = 'evals';

/** Eval runs are addressed by id in the contracts; under a team path they must belong to that team. */
async function evalRunOfTeam(evalRunId: string, ctx: CallContext, field = 'evalRunId') {
  const run = await ctx.send(getEvalRun, { evalRunId }).catch((error: unknown) => {
    // `compare` names which of its two runs is missing.
    throw error instanceof HeadspaceError && error.code === ErrorCodes.evalRunNotFound ? new HeadspaceError(error.code, error.message, { field }) : error;
  });
  if (run.team !== ctx.params.team) throw new HeadspaceError(ErrorCodes.evalRunNotFound, `No eval run ${evalRunId} in team ${ctx.params.team}`, { field });
  return run;
}

export const evalRoutes: ApiRoute[] = [
  commandRoute(startEvalRun, {
    operationId: 'startEvalRun',
    path: '/api/v1/teams/:team/evals/runs',
    tag,
    summary:
      'Run an eval suite (`suite`: evals/<name>.yaml in `workspace`) against one configuration (`agent`, `model`, `effort`): each task as an ask in a fresh checkout, graded by its test commands, file checks and rubric judges, scored per task and overall',
    status: 201,
  }),
  queryRoute(listEvalRuns, {
    operationId: 'listEvalRuns',
    path: '/api/v1/teams/:team/evals/runs',
    tag,
    summary: 'Eval runs of the team, newest first',
    query: pageQuerySchema,
    build: ({ params }) => ({ team: params.team, limit: 200 }),
    list: { field: 'runs', key: (r: { startedAt: string; evalRunId: string }) => `${r.startedAt}|${r.evalRunId}` },
  }),
  queryRoute(getEvalRun, {
    operationId: 'getEvalRun',
    path: '/api/v1/teams/:team/evals/runs/:evalRunId',
    tag,
    summary: 'One eval run: its configuration, every task with its ask, grades, score and cost, and the overall score',
    request: z.object({ team: teamNameSchema, evalRunId: evalRunIdSchema }),
    call: (input: { evalRunId: string }, ctx) => evalRunOfTeam(input.evalRunId, ctx),
  }),
  queryRoute(compareEvalRuns, {
    operationId: 'compareEvalRuns',
    path: '/api/v1/teams/:team/evals/compare',
    tag,
    summary:
      'Compare a completed eval run (`head`) with a baseline (`base`): per-task score deltas and the regressions (a task that passed and now fails, or a score drop past `threshold`, default 0.1)',
    query: z.object({ base: evalRunIdSchema, head: evalRunIdSchema, threshold: z.coerce.number().min(0).max(1).optional() }),
    request: compareEvalRuns.request.extend({ team: teamNameSchema }),
    call: async (input: { base: string; head: string; threshold: number }, ctx) => {
      await Promise.all([evalRunOfTeam(input.base, ctx, 'base'), evalRunOfTeam(input.head, ctx, 'head')]);
      return ctx.send(compareEvalRuns, { base: input.base, head: input.head, threshold: input.threshold });
    },
  }),
];
