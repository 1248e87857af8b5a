import { z } from 'zod';
import { apiPath, defined, defineTool, withQuery } from './headspace-tool';
import { member, paging, team } from './common';

const taskId = z.string().min(1).describe('Task id, as list_tasks or create_task returned it');
const owner = member('Who works on the task: a member name (e.g. "con") or an agent session key');

const taskAction = (action: string, body: (args: Record<string, unknown>) => Record<string, unknown>) =>
  (args: { team: string; taskId: string } & Record<string, unknown>) => ({
    method: 'POST' as const,
    path: apiPath`/api/v1/teams/${args.team}/tasks/${args.taskId}/${action}`,
    body: defined(body(args)),
  });

export const taskTools = [
  defineTool({
    name: 'list_tasks',
    title: 'List tasks',
    description:
      "Lists a team's tasks with status (pending, claimed, completed, escalated), owner, dependencies and what blocks them. Filter by status, owner or blocked to find work: a pending task with blocked=false can be claimed.",
    input: {
      team,
      status: z.enum(['pending', 'claimed', 'completed', 'escalated']).optional().describe('Only tasks in this status'),
      owner: z.string().min(1).optional().describe('Only tasks held by this owner'),
      blocked: z.boolean().optional().describe('true: only tasks waiting on dependencies; false: only unblocked ones'),
      ...paging,
    },
    readOnly: true,
    request: ({ team, status, owner, blocked, limit, cursor }) => ({
      method: 'GET',
      path: withQuery(apiPath`/api/v1/teams/${team}/tasks`, { status, owner, blocked, limit, cursor }),
    }),
  }),
  defineTool({
    name: 'create_task',
    title: 'Create a task',
    description:
      "Adds one task to a team's task list. Give a short imperative subject; dependsOn names tasks that must complete first; files lists the files or globs the task owns. Returns the task id.",
    input: {
      team,
      subject: z.string().min(1).describe('What to do, in a few words ("Add the login endpoint")'),
      description: z.string().optional().describe('Details, acceptance criteria, context'),
      id: z.string().optional().describe('Your own task id (letters, digits, _ and -); derived from the call when omitted'),
      dependsOn: z.array(z.string()).optional().describe('Ids of tasks that must complete before this one can be claimed'),
      files: z.array(z.string()).optional().describe('Files or globs this task owns'),
      metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional().describe('Free key/value labels, e.g. {"area": "api"}'),
    },
    readOnly: false,
    request: ({ team, ...task }) => ({ method: 'POST', path: apiPath`/api/v1/teams/${team}/tasks`, body: defined(task) }),
  }),
  defineTool({
    name: 'claim_task',
    title: 'Claim a task',
    description:
      'Claims a pending, unblocked task for an owner, who then holds it under a lease until complete_task or release_task. Fails with TASK.BLOCKED or TASK.ALREADY_CLAIMED when it cannot be taken.',
    input: { team, taskId, owner, leaseMs: z.number().int().min(100).optional().describe('Lease length in ms (default: the team setting)') },
    readOnly: false,
    request: taskAction('claim', ({ owner, leaseMs }) => ({ owner, leaseMs })),
  }),
  defineTool({
    name: 'complete_task',
    title: 'Complete a task',
    description: 'Marks a task the owner holds as completed, with an optional result summary. Tasks depending on it become claimable.',
    input: { team, taskId, owner, result: z.string().optional().describe('What was done, for the team and reviewers') },
    readOnly: false,
    request: taskAction('complete', ({ owner, result }) => ({ owner, result })),
  }),
  defineTool({
    name: 'release_task',
    title: 'Release a task',
    description: 'Gives a held task back as a failed attempt, saying why, so the next claimer does not repeat the approach.',
    input: { team, taskId, owner, reason: z.string().min(1).describe('What did not work') },
    readOnly: false,
    request: taskAction('release', ({ owner, reason }) => ({ owner, reason })),
  }),
];
