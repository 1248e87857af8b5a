import { z } from 'zod';
import { apiPath, defined, defineTool, withQuery } from './headspace-tool';
import { paging, team } from './common';

const runId = z.string().min(1).describe('The run id from start_run or list_runs');

export const runTools = [
  defineTool({
    name: 'start_run',
    title: 'Start a run',
    description:
      'Starts a full team run on a goal: workshop, spec, task decomposition, build, QA and review on a checkout of `source`. This spends money; follow it with get_run.',
    input: {
      team,
      goal: z.string().min(1).describe('What the team should achieve (markdown)'),
      source: z.string().min(1).describe('A git URL or a directory the orchestrator may read'),
      mode: z.enum(['v1', 'v2', 'v3']).optional().describe('v1: you write the tasks; v2: you approve the plan; v3 (default): the PM decides'),
      operator: z.enum(['interactive', 'auto']).optional().describe('interactive (default): you answer the questions and accept the spec; auto: accepted automatically'),
    },
    readOnly: false,
    request: ({ team, ...run }) => ({ method: 'POST', path: apiPath`/api/v1/teams/${team}/runs`, body: defined(run) }),
  }),
  defineTool({
    name: 'get_run',
    title: 'Get a run',
    description: 'One run: its phase, spec, tasks, what each persona is doing and what it is waiting for.',
    input: { team, runId },
    readOnly: true,
    request: ({ team, runId }) => ({ method: 'GET', path: apiPath`/api/v1/teams/${team}/runs/${runId}` }),
  }),
  defineTool({
    name: 'list_runs',
    title: 'List runs',
    description: "A team's runs, newest first, with phase and goal.",
    input: { team, ...paging },
    readOnly: true,
    request: ({ team, limit, cursor }) => ({ method: 'GET', path: withQuery(apiPath`/api/v1/teams/${team}/runs`, { limit, cursor }) }),
  }),
];
