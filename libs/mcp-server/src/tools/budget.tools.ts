import { z } from 'zod';
import { defineTool, withQuery } from './headspace-tool';
import { team } from './common';

export const budgetTools = [
  defineTool({
    name: 'get_budget',
    title: "Get a team's budget",
    description: "A team's budget: its limit, what was spent and reserved, and whether it is paused at the limit.",
    input: { team },
    readOnly: true,
    request: ({ team }) => ({ method: 'GET', path: withQuery('/api/v1/budgets', { team }) }),
  }),
  defineTool({
    name: 'get_spend',
    title: 'Get spend',
    description: 'Money spent on model calls (USD), grouped by task, session, persona, team, project, surface, model, tier or day; optionally for one team and a time window.',
    input: {
      groupBy: z.enum(['task', 'session', 'persona', 'team', 'project', 'surface', 'model', 'tier', 'day']).describe('How to group the spend'),
      team: team.optional(),
      from: z.string().optional().describe('ISO date-time, inclusive'),
      to: z.string().optional().describe('ISO date-time, exclusive'),
    },
    readOnly: true,
    request: ({ groupBy, team, from, to }) => ({ method: 'GET', path: withQuery('/api/v1/usage/spend', { groupBy, team, from, to }) }),
  }),
];
