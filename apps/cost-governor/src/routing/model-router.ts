import { THINKING_BUDGET_TOKENS, type BudgetPressure, type EffortLevel, type ModelTier, type RoutingDecision, type TaskSignals } from '@headspace/contracts';
import { DEFAULT_RETIREMENT_WARNING_DAYS, retirementWarning } from '../prices/model-retirement';
import type { PriceBook } from '../prices/price-book';

const TIERS: ModelTier[] = ['haiku', 'sonnet', 'opus'];
const EFFORTS: EffortLevel[] = ['quick', 'standard', 'deep'];

/** Seed 003 Req 4.5: the cheapest capable tier for a task. */
export function tierForSignals(s: TaskSignals): { tier: ModelTier; reason: string } {
  if (s.isExploration || (s.filesAffected <= 1 && !s.requiresReasoning)) {
    return { tier: 'haiku', reason: s.isExploration ? 'exploration task → haiku' : 'single-file task without reasoning → haiku' };
  }
  if (s.isTeamLead || s.requiresReasoning || s.dependencyDepth > 3) {
    const why = s.isTeamLead ? 'team lead' : s.requiresReasoning ? 'reasoning required' : `dependency depth ${s.dependencyDepth} > 3`;
    return { tier: 'opus', reason: `${why} → opus` };
  }
  return { tier: 'sonnet', reason: 'standard task → sonnet' };
}

/** Budget pressure: one tier down at warning (Opus → Sonnet → Haiku), Haiku at critical. */
export function applyPressure(tier: ModelTier, pressure: BudgetPressure): ModelTier {
  if (pressure === 'critical') return 'haiku';
  if (pressure === 'warning') return TIERS[Math.max(0, TIERS.indexOf(tier) - 1)];
  return tier;
}

/** Seed 003 Req 12.2 complexity signals: the effort a task deserves before model and budget limits. */
export function effortForSignals(s: TaskSignals): EffortLevel {
  if (s.isExploration || (s.filesAffected <= 1 && !s.requiresReasoning)) return 'quick';
  if (s.requiresReasoning || s.dependencyDepth > 3 || s.ambiguity === 'high') return 'deep';
  return 'standard';
}

/** Model capability: Haiku always Quick, Sonnet at most Standard, Opus any level. */
export function capEffort(effort: EffortLevel, tier: ModelTier): EffortLevel {
  const max: EffortLevel = tier === 'haiku' ? 'quick' : tier === 'sonnet' ? 'standard' : 'deep';
  return EFFORTS[Math.min(EFFORTS.indexOf(effort), EFFORTS.indexOf(max))];
}

export interface RouteInput {
  signals: TaskSignals;
  /** Explicit model (id or alias). */
  model?: string;
  /** Explicit effort: wins over complexity and budget pressure, never over model capability. */
  effort?: EffortLevel;
  interactive: boolean;
  pressure: BudgetPressure;
  /** Models configured to run in Fast Mode (HS_FAST_MODE_MODELS, e.g. claude-opus-4-6). */
  fastModels?: ReadonlySet<string>;
  /** A model retired or retiring within this many days adds a warning to the reasons (HS_MODEL_RETIREMENT_WARN_DAYS). */
  retirementWarningDays?: number;
}

const PRESSURE_REASON: Record<BudgetPressure, string> = {
  normal: '',
  warning: 'Approaching budget limit (80%)',
  critical: 'Budget nearly exhausted (95%)',
};

/** The model that will actually run, its effort and whether it goes through the Batch API. Pure. */
export function routeModel(input: RouteInput, prices: PriceBook, at: Date = new Date()): RoutingDecision {
  const reasons: string[] = [];
  let tier: ModelTier;
  let model: string;
  if (input.model) {
    const row = prices.resolve(input.model, at);
    tier = row.tier;
    model = row.id;
    reasons.push(`explicit model ${input.model}`);
  } else {
    const base = tierForSignals(input.signals);
    tier = base.tier;
    model = prices.modelForTier(tier);
    reasons.push(base.reason);
  }
  const pressured = applyPressure(tier, input.pressure);
  if (pressured !== tier) {
    reasons.push(`${PRESSURE_REASON[input.pressure]}: ${tier} → ${pressured}`);
    tier = pressured;
    model = prices.modelForTier(tier);
  }
  let effort: EffortLevel;
  if (input.effort) {
    effort = input.effort;
    reasons.push(`explicit effort ${effort}`);
  } else {
    effort = effortForSignals(input.signals);
    if (input.pressure === 'critical' && effort !== 'quick') {
      reasons.push(`effort ${effort} → quick under budget pressure`);
      effort = 'quick';
    } else if (input.pressure === 'warning' && effort !== 'quick') {
      const lower = EFFORTS[EFFORTS.indexOf(effort) - 1];
      reasons.push(`effort ${effort} → ${lower} under budget pressure`);
      effort = lower;
    }
  }
  const capped = capEffort(effort, tier);
  if (capped !== effort) {
    reasons.push(`effort ${effort} → ${capped}: ${tier} capability`);
    effort = capped;
  }
  const batch = !input.interactive;
  if (batch) reasons.push('non-interactive → Batch API (50%)');
  const speed = input.fastModels?.has(model) ? 'fast' : 'standard';
  if (speed === 'fast') reasons.push(`Fast Mode configured for ${model}`);
  const retiring = retirementWarning(prices.resolve(model, at), at, input.retirementWarningDays ?? DEFAULT_RETIREMENT_WARNING_DAYS);
  if (retiring) reasons.push(`warning: ${retiring.message}`);
  return { model, tier, batch, effort, thinkingBudgetTokens: THINKING_BUDGET_TOKENS[effort], speed, reasons };
}
