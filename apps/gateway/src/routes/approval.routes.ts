import {
  answerApproval,
  approvalKindSchema,
  ErrorCodes,
  getApproval,
  HeadspaceError,
  listApprovals,
  pageQuerySchema,
  requestApproval,
  teamNameSchema,
} from '@headspace/contracts';
import { z } from 'zod';
import { commandRoute, queryRoute, type ApiRoute, type CallContext } from './api-route';

const tag = 'approvals';

/** Approvals are addressed by id alone in the contracts; under a team path they must belong to it. */
async function approvalOfTeam(approvalId: string, ctx: CallContext) {
  const approval = await ctx.send(getApproval, { approvalId });
  if (approval.team !== ctx.params.team) {
    throw new HeadspaceError(ErrorCodes.approvalNotFound, `No approval ${approvalId} in team ${ctx.params.team}`, { field: 'approvalId' });
  }
  return approval;
}

const approvalIdParams = z.object({ team: teamNameSchema, approvalId: z.string().min(1).max(100) });

export const approvalRoutes: ApiRoute[] = [
  commandRoute(requestApproval, {
    operationId: 'requestApproval',
    path: '/api/v1/teams/:team/approvals',
    tag,
    summary: 'Ask a human or the lead to approve something (answered by default at the timeout)',
    status: 201,
  }),
  queryRoute(listApprovals, {
    operationId: 'listApprovals',
    path: '/api/v1/teams/:team/approvals',
    tag,
    summary: 'Approvals of the team, by kind and status (default pending)',
    query: pageQuerySchema.extend({ kind: approvalKindSchema.optional(), status: z.enum(['pending', 'approved', 'denied', 'all']).optional() }),
    build: ({ params, query }) => ({ ...query, limit: 500, ...params }),
    list: { field: 'approvals', key: (a: { requestedAt: string; approvalId: string }) => `${a.requestedAt}|${a.approvalId}` },
  }),
  queryRoute(getApproval, {
    operationId: 'getApproval',
    path: '/api/v1/teams/:team/approvals/:approvalId',
    tag,
    summary: 'One approval',
    request: approvalIdParams,
    call: (input: { approvalId: string }, ctx) => approvalOfTeam(input.approvalId, ctx),
  }),
  commandRoute(answerApproval, {
    operationId: 'answerApproval',
    path: '/api/v1/teams/:team/approvals/:approvalId/answer',
    tag,
    summary: 'Approve or deny (the first decision is final)',
    request: answerApproval.request.extend({ team: teamNameSchema }),
    call: async ({ team: _team, ...input }: z.input<typeof answerApproval.request> & { team: string }, ctx) => {
      await approvalOfTeam(input.approvalId, ctx);
      return ctx.send(answerApproval, input);
    },
  }),
];
