import type Anthropic from '@anthropic-ai/sdk';
import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { modelFamily } from './models';

/** Requirement 12 of seed 003: three effort levels mapped to extended-thinking budgets. */
export const effortLevels = ['quick', 'standard', 'deep'] as const;
export type EffortLevel = (typeof effortLevels)[number];

export const THINKING_BUDGETS: Readonly<Record<EffortLevel, number>> = {
  quick: 2_000,
  standard: 10_000,
  deep: 50_000,
};

/** The API's lower bound for `budget_tokens`. */
export const MIN_THINKING_BUDGET = 1_024;
/** Room left for the visible answer when max_tokens has to grow past the budget. */
export const DEFAULT_ANSWER_TOKENS = 4_096;

/** Haiku is always quick; Sonnet and Opus take the requested level. */
export function effectiveEffort(effort: EffortLevel, model: string): EffortLevel {
  return modelFamily(model) === 'haiku' ? 'quick' : effort;
}

export function thinkingBudgetFor(effort: EffortLevel, model: string): number {
  return THINKING_BUDGETS[effectiveEffort(effort, model)];
}

export interface ThinkingSettings {
  effort: EffortLevel;
  thinking: Anthropic.ThinkingConfigEnabled;
  /** Always greater than the thinking budget, as the API requires. */
  max_tokens: number;
}

/**
 * `thinking` and `max_tokens` for a request. If the wanted max_tokens does not exceed the budget,
 * it is raised to budget + DEFAULT_ANSWER_TOKENS (capped by maxOutputTokens, and an error if even
 * the cap cannot hold the budget).
 */
export function thinkingSettings(opts: {
  effort: EffortLevel;
  model: string;
  maxTokens: number;
  maxOutputTokens?: number;
}): ThinkingSettings {
  const effort = effectiveEffort(opts.effort, opts.model);
  const budget = THINKING_BUDGETS[effort];
  let maxTokens = opts.maxTokens > budget ? opts.maxTokens : budget + DEFAULT_ANSWER_TOKENS;
  if (opts.maxOutputTokens !== undefined) maxTokens = Math.min(maxTokens, opts.maxOutputTokens);
  if (maxTokens <= budget) {
    throw new HeadspaceError(
      ErrorCodes.llmThinkingBudgetInvalid,
      `max_tokens ${maxTokens} must exceed the thinking budget ${budget} (effort ${effort})`,
      { field: 'max_tokens', details: { effort, budget, maxTokens } },
    );
  }
  return { effort, thinking: { type: 'enabled', budget_tokens: budget }, max_tokens: maxTokens };
}
