import { askIdSchema, ErrorCodes, getAsk, HeadspaceError, listAsks, pageQuerySchema, startAsk, teamNameSchema } from '@headspace/contracts';
import { z } from 'zod';
import { commandRoute, queryRoute, type ApiRoute, type CallContext } from './api-route';

const tag = 'asks';

/** Asks are addressed by id in the contracts; under a team path they must belong to that team. */
async function askOfTeam(askId: string, ctx: CallContext) {
  const ask = await ctx.send(getAsk, { askId });
  if (ask.team !== ctx.params.team) throw new HeadspaceError(ErrorCodes.askNotFound, `No ask ${askId} in team ${ctx.params.team}`, { field: 'askId' });
  return ask;
}

export const askRoutes: ApiRoute[] = [
  commandRoute(startAsk, {
    operationId: 'startAsk',
    path: '/api/v1/teams/:team/asks',
    tag,
    summary: 'Ask one agent: a single session on a branch of `workspace`, on the model the cost governor routes the prompt to (unless `model`/`effort` pin it)',
    status: 201,
  }),
  queryRoute(listAsks, {
    operationId: 'listAsks',
    path: '/api/v1/teams/:team/asks',
    tag,
    summary: 'Asks of the team, newest first',
    query: pageQuerySchema,
    build: ({ params }) => ({ team: params.team, limit: 200 }),
    list: { field: 'asks', key: (a: { startedAt: string; askId: string }) => `${a.startedAt}|${a.askId}` },
  }),
  queryRoute(getAsk, {
    operationId: 'getAsk',
    path: '/api/v1/teams/:team/asks/:askId',
    tag,
    summary: 'One ask: its routing decision (model, effort, reasons), status, result, files changed, branch and cost',
    request: z.object({ team: teamNameSchema, askId: askIdSchema }),
    call: (input: { askId: string }, ctx) => askOfTeam(input.askId, ctx),
  }),
];
