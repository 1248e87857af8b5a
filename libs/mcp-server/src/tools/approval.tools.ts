import { z } from 'zod';
import { apiPath, defined, defineTool, withQuery } from './headspace-tool';
import { paging, team } from './common';

export const approvalTools = [
  defineTool({
    name: 'list_approvals',
    title: 'List approvals',
    description: "Lists a team's approval requests (plans, budget overruns, risky actions) waiting for a decision, or all of them.",
    input: { team, status: z.enum(['pending', 'approved', 'denied', 'all']).optional().describe('Default pending'), ...paging },
    readOnly: true,
    request: ({ team, status, limit, cursor }) => ({ method: 'GET', path: withQuery(apiPath`/api/v1/teams/${team}/approvals`, { status, limit, cursor }) }),
  }),
  defineTool({
    name: 'answer_approval',
    title: 'Answer an approval',
    description: 'Approves or denies a pending approval request. The first decision is final; say why when denying.',
    input: {
      team,
      approvalId: z.string().min(1).describe('The approval id from list_approvals'),
      decision: z.enum(['approve', 'deny']),
      reason: z.string().optional().describe('Why (shown to the requester)'),
      answeredBy: z.string().min(1).describe('Who decides (your name)'),
    },
    readOnly: false,
    request: ({ team, approvalId, ...answer }) => ({ method: 'POST', path: apiPath`/api/v1/teams/${team}/approvals/${approvalId}/answer`, body: defined(answer) }),
  }),
];
