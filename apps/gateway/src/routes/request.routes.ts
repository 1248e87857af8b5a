import { ErrorCodes, getRequest, HeadspaceError, requestIdSchema, startRequest, teamNameSchema } from '@headspace/contracts';
import { z } from 'zod';
import { commandRoute, queryRoute, type ApiRoute, type CallContext } from './api-route';

const tag = 'requests';

/** Requests are addressed by id in the contracts; under a team path they must belong to that team. */
async function requestOfTeam(requestId: string, ctx: CallContext) {
  const chosen = await ctx.send(getRequest, { requestId });
  if (chosen.team !== ctx.params.team) throw new HeadspaceError(ErrorCodes.requestNotFound, `No request ${requestId} in team ${ctx.params.team}`, { field: 'requestId' });
  return chosen;
}

export const requestRoutes: ApiRoute[] = [
  commandRoute(startRequest, {
    operationId: 'startRequest',
    path: '/api/v1/teams/:team/requests',
    tag,
    summary:
      'Hand the orchestrator a request with `topology: auto` (default): it chooses from the prompt’s TaskSignals between one agent (an ask) and the agent team (a run), starts it and records the choice with its reasons; `ask` or `run` names it instead',
    status: 201,
  }),
  queryRoute(getRequest, {
    operationId: 'getRequest',
    path: '/api/v1/teams/:team/requests/:requestId',
    tag,
    summary: 'The topology chosen for a request, the signals and reasons it was chosen on, and the ask or run it started',
    request: z.object({ team: teamNameSchema, requestId: requestIdSchema }),
    call: (input: { requestId: string }, ctx) => requestOfTeam(input.requestId, ctx),
  }),
];
