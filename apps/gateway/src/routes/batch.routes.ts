import { batchIdSchema, ErrorCodes, getBatch, HeadspaceError, listBatches, pageQuerySchema, submitBatch, teamNameSchema } from '@headspace/contracts';
import { z } from 'zod';
import { commandRoute, queryRoute, type ApiRoute, type CallContext } from './api-route';

const tag = 'batches';

/** Batches are addressed by id in the contracts; under a team path they must belong to that team. */
async function batchOfTeam(batchId: string, ctx: CallContext) {
  const batch = await ctx.send(getBatch, { batchId });
  if (batch.team !== ctx.params.team) throw new HeadspaceError(ErrorCodes.batchNotFound, `No batch ${batchId} in team ${ctx.params.team}`, { field: 'batchId' });
  return batch;
}

export const batchRoutes: ApiRoute[] = [
  commandRoute(submitBatch, {
    operationId: 'submitBatch',
    path: '/api/v1/teams/:team/batches',
    tag,
    summary:
      'Submit deferrable prompts as one Message Batch: each routed by the cost governor as non-interactive work (unless `model`/`effort` pin it), answered within 24 hours and settled at batch prices',
    status: 201,
  }),
  queryRoute(listBatches, {
    operationId: 'listBatches',
    path: '/api/v1/teams/:team/batches',
    tag,
    summary: 'Batches of the team, newest first',
    query: pageQuerySchema,
    build: ({ params }) => ({ team: params.team, limit: 200 }),
    list: { field: 'batches', key: (b: { submittedAt: string; batchId: string }) => `${b.submittedAt}|${b.batchId}` },
  }),
  queryRoute(getBatch, {
    operationId: 'getBatch',
    path: '/api/v1/teams/:team/batches/:batchId',
    tag,
    summary: 'One batch: its status, provider batch id and every item with its result text, usage and cost at batch prices',
    request: z.object({ team: teamNameSchema, batchId: batchIdSchema }),
    call: (input: { batchId: string }, ctx) => batchOfTeam(input.batchId, ctx),
  }),
];
