import {
  exportUsage,
  getBudget,
  getCacheEconomics,
  getPrices,
  getQuota,
  getSpend,
  getTaskCost,
  getTierDistribution,
  pageQuerySchema,
  resolveBudgetPause,
  setBudget,
  setQuota,
  spendGroupBySchema,
  taskIdSchema,
  teamNameSchema,
  updatePrices,
  type BudgetScope,
} from '@headspace/contracts';
import { z } from 'zod';
import { commandRoute, queryRoute, type ApiRoute } from './api-route';

const tag = 'costs';

/** `team.alpha`, `agent.alpha.con` → `alpha`; session and project budgets belong to no team (''). */
export const teamOfBudget = (budgetId: unknown) => {
  const match = typeof budgetId === 'string' ? /^(?:team|agent)\.([^.]+)/.exec(budgetId) : null;
  return match ? match[1] : '';
};

const fromQueryTeam = { fromRequest: (raw: Record<string, unknown>) => (typeof raw.team === 'string' ? raw.team : '') };

const usageFilters = z.object({
  team: z.string().max(200).optional(),
  project: z.string().max(200).optional(),
  sessionId: z.string().max(200).optional(),
  persona: z.string().max(200).optional(),
  from: z.iso.datetime().optional(),
  to: z.iso.datetime().optional(),
});

/**
 * The cost-governor's operator surface: prices, budgets, spend reports and quotas. Runtime calls
 * (may-spend, record-usage, route-model) stay service-to-service over NATS.
 */
export const costRoutes: ApiRoute[] = [
  queryRoute(getPrices, { operationId: 'getPrices', path: '/api/v1/prices', tag, summary: 'The current model price table', build: () => ({}) }),
  commandRoute(updatePrices, {
    operationId: 'updatePrices',
    method: 'PUT',
    path: '/api/v1/prices',
    tag,
    summary: 'Publish a new price table (its version must be newer)',
    role: 'admin',
  }),
  commandRoute(setBudget, {
    operationId: 'setBudget',
    method: 'PUT',
    path: '/api/v1/budgets',
    tag,
    summary: 'Set a budget for a session, agent, team or project',
    role: 'admin',
    team: (input: { scope: BudgetScope }) => ('team' in input.scope ? input.scope.team : ''),
  }),
  queryRoute(getBudget, {
    operationId: 'getTeamBudget',
    path: '/api/v1/budgets',
    tag,
    summary: "A team's budget (`?team=`), as the CLI's `budget` command shows it",
    query: z.object({ team: teamNameSchema }),
    build: ({ query }) => ({ budgetId: `team.${String(query.team)}` }),
    team: fromQueryTeam,
  }),
  queryRoute(getBudget, {
    operationId: 'getBudget',
    path: '/api/v1/budgets/:budgetId',
    tag,
    summary: 'A budget with its spend, reservations and state',
    team: { fromRequest: (raw) => teamOfBudget(raw.budgetId) },
  }),
  commandRoute(resolveBudgetPause, {
    operationId: 'resolveBudgetPause',
    path: '/api/v1/budgets/:budgetId/resolve',
    tag,
    summary: 'Approve (raising the limit) or deny a budget paused at its limit',
    team: { fromRequest: (raw) => teamOfBudget(raw.budgetId) },
  }),
  queryRoute(getSpend, {
    operationId: 'getSpend',
    path: '/api/v1/usage/spend',
    tag,
    summary: 'Spend grouped by task, session, persona, team, project, surface, model, tier or day',
    query: usageFilters.extend({ groupBy: spendGroupBySchema }),
    team: fromQueryTeam,
  }),
  queryRoute(getSpend, {
    operationId: 'getUsage',
    path: '/api/v1/usage',
    tag,
    summary: 'Spend summary, by persona unless `groupBy` says otherwise',
    query: usageFilters.extend({ groupBy: spendGroupBySchema.default('persona') }),
    team: fromQueryTeam,
  }),
  queryRoute(getTierDistribution, {
    operationId: 'getTierDistribution',
    path: '/api/v1/usage/tiers',
    tag,
    summary: 'Calls and cost by model tier',
    query: usageFilters,
    team: fromQueryTeam,
  }),
  queryRoute(exportUsage, {
    operationId: 'exportUsage',
    path: '/api/v1/usage/export',
    tag,
    summary: 'Daily usage rows (paged by date)',
    query: pageQuerySchema.extend(usageFilters.shape),
    team: fromQueryTeam,
    list: { field: 'rows', key: (r: { date: string }) => r.date },
  }),
  queryRoute(getTaskCost, {
    operationId: 'getTaskCost',
    path: '/api/v1/usage/tasks/:taskId',
    tag,
    summary: 'What one task cost',
    // Path ids follow the task list's id format, stricter than the cost-governor's own contract.
    request: getTaskCost.request.extend({ taskId: taskIdSchema }),
    team: { fromRequest: () => '' },
  }),
  queryRoute(getCacheEconomics, {
    operationId: 'getCacheEconomics',
    path: '/api/v1/teams/:team/cache-economics',
    tag,
    summary: 'Prompt-cache hit rate and savings of a team and its agents',
    request: getCacheEconomics.request.extend({ team: teamNameSchema }),
  }),
  queryRoute(getQuota, {
    operationId: 'getQuota',
    path: '/api/v1/projects/:project/quota',
    tag,
    summary: "A project's weekly quota, consumption and predicted exhaustion",
    project: 'path',
  }),
  commandRoute(setQuota, {
    operationId: 'setQuota',
    method: 'PUT',
    path: '/api/v1/projects/:project/quota',
    tag,
    summary: "Set a project's weekly quota",
    role: 'admin',
    project: 'path',
  }),
];
