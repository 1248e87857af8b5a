import { ErrorCodes, getLoop, HeadspaceError, listLoops, loopIdSchema, pageQuerySchema, startLoop, stopLoop, teamNameSchema } from '@headspace/contracts';
import { z } from 'zod';
import { commandRoute, queryRoute, type ApiRoute, type CallContext } from './api-route';

const tag = 'loops';

/** Loops are addressed by id in the contracts; under a team path they must belong to that team. */
async function loopOfTeam(loopId: string, ctx: CallContext) {
  const loop = await ctx.send(getLoop, { loopId });
  if (loop.team !== ctx.params.team) throw new HeadspaceError(ErrorCodes.loopNotFound, `No loop ${loopId} in team ${ctx.params.team}`, { field: 'loopId' });
  return loop;
}

export const loopRoutes: ApiRoute[] = [
  commandRoute(startLoop, {
    operationId: 'startLoop',
    path: '/api/v1/teams/:team/loops',
    tag,
    summary:
      'Start a self-improving loop: a fresh agent session per iteration on a branch of `workspace`, reading the loop-context file, checkpointed in git and checked by `check`, until it succeeds or a safety control (max iterations, stop file, diff limit, same error N times) stops it',
    status: 201,
  }),
  queryRoute(listLoops, {
    operationId: 'listLoops',
    path: '/api/v1/teams/:team/loops',
    tag,
    summary: 'Loops of the team, newest first',
    query: pageQuerySchema,
    build: ({ params }) => ({ team: params.team, limit: 200 }),
    list: { field: 'loops', key: (l: { startedAt: string; loopId: string }) => `${l.startedAt}|${l.loopId}` },
  }),
  queryRoute(getLoop, {
    operationId: 'getLoop',
    path: '/api/v1/teams/:team/loops/:loopId',
    tag,
    summary: 'One loop: its iterations (checkpoint, lines changed, check result and error signature, learnings), its stop reason and cost',
    request: z.object({ team: teamNameSchema, loopId: loopIdSchema }),
    call: (input: { loopId: string }, ctx) => loopOfTeam(input.loopId, ctx),
  }),
  commandRoute(stopLoop, {
    operationId: 'stopLoop',
    path: '/api/v1/teams/:team/loops/:loopId/stop',
    tag,
    summary: 'Ask a loop to stop at its next iteration boundary (the iteration at work ends with its checkpoint), as the stop file does',
  }),
];
