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

/**
 * How a model takes its thinking settings. Claude 4.5 and older take a token budget
 * (`thinking.type: enabled`); Claude 4.6 and the 5 generation think adaptively — a manual budget is
 * deprecated there or refused with a 400 — and take an effort level in `output_config.effort`.
 */
export type ThinkingMode = 'budget' | 'adaptive';
export function thinkingModeFor(model: string): ThinkingMode {
  return /^claude-(opus|sonnet|haiku|fable|mythos)-(4-[6-9]|[5-9])/.test(model) || model === 'claude-mythos-preview' ? 'adaptive' : 'budget';
}

/**
 * Adaptive models where a manual budget is only deprecated (the SDK warns on it): Claude 4.6 and
 * Mythos Preview. From Opus 4.7 and Sonnet 5 on, the API answers 400 to `thinking.type: enabled`.
 */
const BUDGET_DEPRECATED_ONLY = /^claude-(opus|sonnet)-4-6(-|$)|^claude-mythos-preview$/;
export function refusesThinkingBudget(model: string): boolean {
  return thinkingModeFor(model) === 'adaptive' && !BUDGET_DEPRECATED_ONLY.test(model);
}

/** Seed 003 Req 12's levels on adaptive models, where a token budget cannot be set. */
export const ADAPTIVE_EFFORT: Readonly<Record<EffortLevel, 'low' | 'medium' | 'high'>> = { quick: 'low', standard: 'medium', deep: 'high' };

/**
 * A caller's raw `thinking` config, fitted to `model`. On adaptive models a manual budget
 * (`type: 'enabled'`) is deprecated (the SDK warns on every such call to claude-opus-4-6) or refused,
 * so it becomes `type: 'adaptive'` with the effort level whose budget covers it (above the deep
 * budget: deep), as `output_config.effort`. Anything else passes through unchanged.
 */
export function fitThinking(
  thinking: Anthropic.ThinkingConfigParam,
  model: string,
): { thinking: Anthropic.ThinkingConfigParam; outputEffort?: 'low' | 'medium' | 'high' } {
  if (thinking.type !== 'enabled' || thinkingModeFor(model) !== 'adaptive') return { thinking };
  const level = effortLevels.find((l) => thinking.budget_tokens <= THINKING_BUDGETS[l]) ?? 'deep';
  const adaptive: Anthropic.ThinkingConfigAdaptive = { type: 'adaptive', ...(thinking.display != null ? { display: thinking.display } : {}) };
  return { thinking: adaptive, outputEffort: ADAPTIVE_EFFORT[effectiveEffort(level, model)] };
}

export interface ThinkingSettings {
  effort: EffortLevel;
  thinking: Anthropic.ThinkingConfigEnabled | Anthropic.ThinkingConfigAdaptive;
  /** On budget models always greater than the thinking budget, as the API requires. */
  max_tokens: number;
  /** `output_config.effort` for adaptive models. */
  outputEffort?: 'low' | 'medium' | 'high';
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
  if (thinkingModeFor(opts.model) === 'adaptive') {
    const maxTokens = opts.maxOutputTokens !== undefined ? Math.min(opts.maxTokens, opts.maxOutputTokens) : opts.maxTokens;
    return { effort, thinking: { type: 'adaptive' }, max_tokens: maxTokens, outputEffort: ADAPTIVE_EFFORT[effort] };
  }
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
