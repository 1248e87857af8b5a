import { readFileSync } from 'node:fs';
import { taskSignalsSchema, type BudgetPressure, type EffortLevel, type ModelTier, type TaskSignals } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { parsePriceTable, PriceBook } from '../prices/price-book';
import { DEFAULT_PRICES_FILE } from '../prices/price-catalog.service';
import { routeModel } from './model-router';

const book = new PriceBook(parsePriceTable(readFileSync(DEFAULT_PRICES_FILE, 'utf8'), 'prices.yaml'));
const signals = (s: Partial<TaskSignals>) => taskSignalsSchema.parse(s);

interface Row {
  rule: string;
  signals: Partial<TaskSignals>;
  model?: string;
  effort?: EffortLevel;
  pressure?: BudgetPressure;
  interactive?: boolean;
  tier: ModelTier;
  wantEffort: EffortLevel;
  batch?: boolean;
}

const table: Row[] = [
  // Tier rules (seed 003 Req 4.5) with the complexity-based effort (Req 12.2)
  { rule: 'exploration → haiku, quick', signals: { isExploration: true, filesAffected: 12, requiresReasoning: true }, tier: 'haiku', wantEffort: 'quick' },
  { rule: 'one file without reasoning → haiku, quick', signals: { filesAffected: 1 }, tier: 'haiku', wantEffort: 'quick' },
  { rule: 'team lead → opus', signals: { isTeamLead: true, filesAffected: 3 }, tier: 'opus', wantEffort: 'standard' },
  { rule: 'reasoning required → opus, deep', signals: { requiresReasoning: true, filesAffected: 1 }, tier: 'opus', wantEffort: 'deep' },
  { rule: 'dependency depth > 3 → opus, deep', signals: { dependencyDepth: 4, filesAffected: 2 }, tier: 'opus', wantEffort: 'deep' },
  { rule: 'dependency depth 3 stays sonnet', signals: { dependencyDepth: 3, filesAffected: 2 }, tier: 'sonnet', wantEffort: 'standard' },
  { rule: 'default → sonnet, standard', signals: { filesAffected: 4 }, tier: 'sonnet', wantEffort: 'standard' },
  { rule: 'high ambiguity on sonnet is capped at standard', signals: { filesAffected: 4, ambiguity: 'high' }, tier: 'sonnet', wantEffort: 'standard' },
  // Budget pressure
  { rule: 'warning: opus one tier down to sonnet, effort one level down', signals: { requiresReasoning: true, filesAffected: 2 }, pressure: 'warning', tier: 'sonnet', wantEffort: 'standard' },
  { rule: 'warning: sonnet one tier down to haiku', signals: { filesAffected: 4 }, pressure: 'warning', tier: 'haiku', wantEffort: 'quick' },
  { rule: 'warning: haiku stays haiku', signals: { isExploration: true }, pressure: 'warning', tier: 'haiku', wantEffort: 'quick' },
  { rule: 'critical: opus forced to haiku', signals: { isTeamLead: true, filesAffected: 3 }, pressure: 'critical', tier: 'haiku', wantEffort: 'quick' },
  // Explicit overrides
  { rule: 'explicit model wins over the signals', signals: { isExploration: true }, model: 'opus', tier: 'opus', wantEffort: 'quick' },
  { rule: 'explicit model still steps down under pressure', signals: { filesAffected: 5 }, model: 'claude-opus-4-6', pressure: 'warning', tier: 'sonnet', wantEffort: 'quick' },
  { rule: 'explicit effort wins over complexity and pressure', signals: { filesAffected: 5 }, model: 'opus', effort: 'deep', tier: 'opus', wantEffort: 'deep' },
  { rule: 'explicit effort never beats haiku capability', signals: { isExploration: true }, effort: 'deep', tier: 'haiku', wantEffort: 'quick' },
  { rule: 'explicit deep on sonnet is capped at standard', signals: { filesAffected: 5 }, effort: 'deep', tier: 'sonnet', wantEffort: 'standard' },
  // Batch API
  { rule: 'non-interactive work goes to the Batch API', signals: { filesAffected: 5 }, interactive: false, tier: 'sonnet', wantEffort: 'standard', batch: true },
];

const BUDGET_TOKENS: Record<EffortLevel, number> = { quick: 2_000, standard: 10_000, deep: 50_000 };

describe('routing and effort', () => {
  it.each(table)('$rule', (row) => {
    const decision = routeModel(
      { signals: signals(row.signals), model: row.model, effort: row.effort, interactive: row.interactive ?? true, pressure: row.pressure ?? 'normal' },
      book,
    );
    expect(decision.tier).toBe(row.tier);
    expect(decision.model).toBe(book.modelForTier(row.tier));
    expect(decision.effort).toBe(row.wantEffort);
    expect(decision.thinkingBudgetTokens).toBe(BUDGET_TOKENS[row.wantEffort]);
    expect(decision.batch).toBe(row.batch ?? false);
  });

  it('names the 80% reason when it downgrades', () => {
    const decision = routeModel({ signals: signals({ filesAffected: 5 }), model: 'opus', interactive: true, pressure: 'warning' }, book);
    expect(decision.reasons).toContain('Approaching budget limit (80%): opus → sonnet');
  });

  it('marks calls on a Fast Mode model as fast, and only those', () => {
    const fastModels = new Set(['claude-opus-4-6']);
    expect(routeModel({ signals: signals({ isTeamLead: true, filesAffected: 3 }), interactive: true, pressure: 'normal', fastModels }, book).speed).toBe('fast');
    expect(routeModel({ signals: signals({ isTeamLead: true, filesAffected: 3 }), interactive: true, pressure: 'warning', fastModels }, book).speed).toBe('standard');
  });

  it('keeps an explicit model id that is not a tier default when there is no pressure', () => {
    const decision = routeModel({ signals: signals({}), model: 'claude-opus-4-1', interactive: true, pressure: 'normal' }, book);
    expect(decision.model).toBe('claude-opus-4-1-20250805');
  });

  it('routes explicit 5-generation ids from the SDK (Fable in the top tier) without a warning', () => {
    for (const [model, tier] of [['claude-fable-5-1', 'opus'], ['claude-opus-5-5', 'opus'], ['claude-sonnet-5-5', 'sonnet'], ['claude-haiku-5-5', 'haiku']] as const) {
      const decision = routeModel({ signals: signals({}), model, interactive: true, pressure: 'normal' }, book, new Date('2026-11-26T12:00:00Z'));
      expect({ model: decision.model, tier: decision.tier, warned: decision.reasons.some((r) => r.startsWith('warning:')) }).toEqual({ model, tier, warned: false });
    }
  });

  it('warns in the reasons when the model that will run retires within the warning window', () => {
    const route = (at: string, retirementWarningDays?: number) =>
      routeModel({ signals: signals({}), model: 'claude-sonnet-4-5', interactive: true, pressure: 'normal', retirementWarningDays }, book, new Date(`${at}T12:00:00Z`)).reasons;
    expect(route('2026-11-26')).toContain('warning: claude-sonnet-4-5-20250929 retires on 2026-11-30 (in 4 days): move to a current model');
    expect(route('2026-12-01')).toContain('warning: claude-sonnet-4-5-20250929 was retired on 2026-11-30: requests to it fail');
    expect(route('2026-09-01').some((r) => r.startsWith('warning:'))).toBe(false); // 90 days out, default window 60
    expect(route('2026-09-01', 90)).toContain('warning: claude-sonnet-4-5-20250929 retires on 2026-11-30 (in 90 days): move to a current model');
  });

  it('refuses an unknown explicit model', () => {
    expect(() => routeModel({ signals: signals({}), model: 'claude-nope', interactive: true, pressure: 'normal' }, book)).toThrow(/No price for model "claude-nope"/);
  });
});
