import type { BudgetPressure, BudgetView } from '@headspace/contracts';
import { CRITICAL_PERCENT, reservedTotal, type ActiveBudget } from './budget.decider';

export function toBudgetView(state: ActiveBudget): BudgetView {
  return {
    budgetId: state.budgetId,
    scope: state.scope,
    status: state.status,
    period: state.period,
    periodStart: state.periodStart,
    ...(state.limit === undefined ? {} : { limitMicros: state.limit.toString() }),
    spentMicros: state.spent.toString(),
    reservedMicros: reservedTotal(state).toString(),
    ...(state.limit === undefined || state.limit === 0n ? {} : { utilisation: Number((state.spent * 10_000n) / state.limit) / 100 }),
    ...(state.turnInputTokens === undefined ? {} : { turnInputTokens: state.turnInputTokens }),
    ...(state.turnOutputTokens === undefined ? {} : { turnOutputTokens: state.turnOutputTokens }),
    warned: state.warned,
    ...(state.approvalId ? { approvalId: state.approvalId } : {}),
  };
}

/**
 * How hard a budget presses on routing: `critical` at ≥ 95% of the limit (spent + held), `warning`
 * once the 80% threshold fired this period (it stays so after a top-up: the journey resumes on the
 * downgraded model), else `normal`.
 */
export function pressureOf(state: ActiveBudget): BudgetPressure {
  if (state.limit !== undefined && state.limit > 0n && (state.spent + reservedTotal(state)) * 100n >= BigInt(CRITICAL_PERCENT) * state.limit) return 'critical';
  return state.warned ? 'warning' : 'normal';
}

const RANK: Record<BudgetPressure, number> = { normal: 0, warning: 1, critical: 2 };

export const maxPressure = (levels: BudgetPressure[]): BudgetPressure =>
  levels.reduce<BudgetPressure>((worst, level) => (RANK[level] > RANK[worst] ? level : worst), 'normal');
