import { answerRun, ErrorCodes, getRun, HeadspaceError, listRuns, pageQuerySchema, runIdSchema, startRun, teamNameSchema } from '@headspace/contracts';
import { z } from 'zod';
import { commandRoute, objectBody, queryRoute, type ApiRoute, type CallContext } from './api-route';

const tag = 'runs';

/** Runs are addressed by id in the contracts; under a team path they must belong to that team. */
async function runOfTeam(runId: string, ctx: CallContext) {
  const run = await ctx.send(getRun, { runId });
  if (run.team !== ctx.params.team) throw new HeadspaceError(ErrorCodes.runNotFound, `No run ${runId} in team ${ctx.params.team}`, { field: 'runId' });
  return run;
}

const runParams = z.object({ team: teamNameSchema, runId: runIdSchema });

export const runRoutes: ApiRoute[] = [
  commandRoute(startRun, {
    operationId: 'startRun',
    path: '/api/v1/teams/:team/runs',
    tag,
    summary: 'Start a run: the team works a goal from workshop to review on a checkout of `source` (a directory on the orchestrator host)',
    status: 201,
  }),
  queryRoute(listRuns, {
    operationId: 'listRuns',
    path: '/api/v1/teams/:team/runs',
    tag,
    summary: 'Runs of the team, newest first',
    query: pageQuerySchema,
    build: ({ params }) => ({ team: params.team, limit: 200 }),
    list: { field: 'runs', key: (r: { startedAt: string; runId: string }) => `${r.startedAt}|${r.runId}` },
  }),
  queryRoute(getRun, {
    operationId: 'getRun',
    path: '/api/v1/teams/:team/runs/:runId',
    tag,
    summary: 'One run: phase, spec, tasks, what each persona is doing, what it waits for',
    request: runParams,
    call: (input: { runId: string }, ctx) => runOfTeam(input.runId, ctx),
  }),
  commandRoute(answerRun, {
    operationId: 'answerRun',
    path: '/api/v1/teams/:team/runs/:runId/answer',
    tag,
    summary: 'Answer Robbo’s questions, accept the spec, approve or edit Gavin’s tasks, or answer an escalation (`kind` says which)',
    request: z.intersection(answerRun.request, runParams),
    build: ({ params, body }) => ({ ...objectBody(body), ...params }),
    call: async ({ team: _team, ...input }: z.input<typeof answerRun.request> & { team: string }, ctx) => {
      await runOfTeam(input.runId, ctx);
      return ctx.send(answerRun, input);
    },
  }),
];
