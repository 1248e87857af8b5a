import type { Attribution, BudgetView } from '@headspace/contracts';
import { meter } from '@headspace/telemetry';

const tokens = meter.createCounter('headspace.llm.tokens', { description: 'Tokens recorded in the usage ledger, by kind' });
const usd = meter.createCounter('headspace.llm.cost_usd', { description: 'USD recorded in the usage ledger', unit: 'USD' });
const utilisation = meter.createObservableGauge('headspace.budget.utilisation', { description: 'Spent share of a budget limit (0..1)' });
const decisions = meter.createCounter('headspace.budget.may_spend', { description: 'may-spend answers by decision and routed tier' });

const lastUtilisation = new Map<string, { value: number; kind: string }>();
utilisation.addCallback((result) => {
  for (const [budgetId, { value, kind }] of lastUtilisation) result.observe(value, { budget_id: budgetId, scope: kind });
});

/** Prometheus series of one usage record: tokens and USD by persona, model and team. */
export function recordUsageMetrics(
  a: Attribution,
  model: string,
  t: { inputTokens: number; outputTokens: number; cacheWrite5mTokens: number; cacheWrite1hTokens: number; cacheReadTokens: number },
  costMicros: bigint,
): void {
  const labels = { persona: a.persona, team: a.team, model };
  tokens.add(t.inputTokens, { ...labels, kind: 'input' });
  tokens.add(t.outputTokens, { ...labels, kind: 'output' });
  tokens.add(t.cacheWrite5mTokens + t.cacheWrite1hTokens, { ...labels, kind: 'cache_write' });
  tokens.add(t.cacheReadTokens, { ...labels, kind: 'cache_read' });
  usd.add(Number(costMicros) / 1e6, labels);
}

export function recordBudgetMetrics(views: BudgetView[]): void {
  if (lastUtilisation.size > 5_000) lastUtilisation.clear();
  for (const view of views) {
    if (view.utilisation !== undefined) lastUtilisation.set(view.budgetId, { value: view.utilisation / 100, kind: view.scope.kind });
  }
}

export function recordDecisionMetric(decision: string, tier: string): void {
  decisions.add(1, { decision, tier });
}
