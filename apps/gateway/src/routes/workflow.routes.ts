import { cancelWorkflow, ErrorCodes, getWorkflow, HeadspaceError, listWorkflows, pageQuerySchema, startWorkflow, teamNameSchema, ValidationError, workflowIdSchema } from '@headspace/contracts';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { commandRoute, objectBody, queryRoute, type ApiRoute, type CallContext } from './api-route';

const tag = 'workflows';

/** An `application/yaml` body is the same object as the JSON one, written as YAML. */
function yamlBody(text: string): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    throw new ValidationError('request body', [{ field: '(root)', message: `not valid YAML: ${(error as Error).message.split('\n')[0]}` }]);
  }
}

/** Workflows are addressed by id in the contracts; under a team path they must belong to that team. */
async function workflowOfTeam(workflowId: string, ctx: CallContext) {
  const workflow = await ctx.send(getWorkflow, { workflowId });
  if (workflow.team !== ctx.params.team) throw new HeadspaceError(ErrorCodes.workflowNotFound, `No workflow ${workflowId} in team ${ctx.params.team}`, { field: 'workflowId' });
  return workflow;
}

export const workflowRoutes: ApiRoute[] = [
  commandRoute(startWorkflow, {
    operationId: 'startWorkflow',
    path: '/api/v1/teams/:team/workflows',
    tag,
    summary:
      'Start a workflow: a DAG of ask steps (`needs`, conditions, retries, `{{ steps.<id>.output }}` in prompts) run in parallel up to its concurrency, or a `pipeline` of stages run in order; a bad definition, an unknown or cyclic dependency is a 400 naming the field (JSON or YAML body)',
    status: 201,
    body: 'json-or-yaml',
    build: ({ params, body }) => ({ ...objectBody(typeof body === 'string' ? yamlBody(body) : body), ...params }),
  }),
  queryRoute(listWorkflows, {
    operationId: 'listWorkflows',
    path: '/api/v1/teams/:team/workflows',
    tag,
    summary: 'Workflows of the team, newest first',
    query: pageQuerySchema,
    build: ({ params }) => ({ team: params.team, limit: 200 }),
    list: { field: 'workflows', key: (w: { startedAt: string; workflowId: string }) => `${w.startedAt}|${w.workflowId}` },
  }),
  queryRoute(getWorkflow, {
    operationId: 'getWorkflow',
    path: '/api/v1/teams/:team/workflows/:workflowId',
    tag,
    summary: 'One workflow: every step with its status, attempts, ask, prompt as sent, output, cost and timings',
    request: z.object({ team: teamNameSchema, workflowId: workflowIdSchema }),
    call: (input: { workflowId: string }, ctx) => workflowOfTeam(input.workflowId, ctx),
  }),
  commandRoute(cancelWorkflow, {
    operationId: 'cancelWorkflow',
    path: '/api/v1/teams/:team/workflows/:workflowId/cancel',
    tag,
    summary: 'Cancel a running workflow: no further step starts (an ask already running finishes on its own)',
    request: cancelWorkflow.request.extend({ team: teamNameSchema }),
    call: async (input: { workflowId: string; reason?: string }, ctx) => {
      await workflowOfTeam(input.workflowId, ctx);
      return ctx.send(cancelWorkflow, { workflowId: input.workflowId, ...(input.reason ? { reason: input.reason } : {}) });
    },
  }),
];
