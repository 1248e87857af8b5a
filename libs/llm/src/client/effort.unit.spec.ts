import { ErrorCodes } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ANSWER_TOKENS, effectiveEffort, fitThinking, thinkingBudgetFor, thinkingModeFor, thinkingSettings } from './effort';
import { toMessageParams } from './client';

describe('effort levels and thinking budgets', () => {
  it('maps quick, standard and deep to 2,000, 10,000 and 50,000 budget tokens', () => {
    expect(thinkingBudgetFor('quick', 'claude-opus-5-5')).toBe(2_000);
    expect(thinkingBudgetFor('standard', 'claude-opus-5-5')).toBe(10_000);
    expect(thinkingBudgetFor('deep', 'claude-opus-5-5')).toBe(50_000);
  });

  it('keeps Haiku at quick whatever effort is asked for', () => {
    expect(effectiveEffort('deep', 'claude-haiku-5-5')).toBe('quick');
    expect(thinkingSettings({ effort: 'deep', model: 'claude-haiku-4-5-20251001', maxTokens: 8_000 })).toEqual({
      effort: 'quick',
      thinking: { type: 'enabled', budget_tokens: 2_000 },
      max_tokens: 8_000,
    });
  });

  it('keeps a max_tokens that already exceeds the budget', () => {
    const s = thinkingSettings({ effort: 'standard', model: 'claude-sonnet-4-5-20250929', maxTokens: 16_000 });
    expect(s.max_tokens).toBe(16_000);
    expect(s.thinking).toEqual({ type: 'enabled', budget_tokens: 10_000 });
  });

  it('raises max_tokens above the budget when it would not exceed it', () => {
    const s = thinkingSettings({ effort: 'deep', model: 'claude-opus-4-5', maxTokens: 50_000 });
    expect(s.max_tokens).toBe(50_000 + DEFAULT_ANSWER_TOKENS);
    expect(s.thinking).toEqual({ type: 'enabled', budget_tokens: 50_000 });
  });

  it('fails with LLM.THINKING_BUDGET_INVALID when the output cap cannot hold the budget', () => {
    expect(() =>
      thinkingSettings({ effort: 'deep', model: 'claude-opus-4-5', maxTokens: 1_000, maxOutputTokens: 32_000 }),
    ).toThrow(expect.objectContaining({ code: ErrorCodes.llmThinkingBudgetInvalid, field: 'max_tokens' }));
  });

  it('on adaptive-thinking models (Claude 4.6 and 5.x) sends adaptive thinking with the effort level instead of a budget', () => {
    expect(thinkingModeFor('claude-sonnet-5-5')).toBe('adaptive');
    expect(thinkingModeFor('claude-opus-4-6')).toBe('adaptive');
    expect(thinkingModeFor('claude-sonnet-4-5-20250929')).toBe('budget');
    expect(thinkingSettings({ effort: 'deep', model: 'claude-opus-5-5', maxTokens: 8_000 })).toEqual({ effort: 'deep', thinking: { type: 'adaptive' }, max_tokens: 8_000, outputEffort: 'high' });
    expect(thinkingSettings({ effort: 'deep', model: 'claude-haiku-5-5', maxTokens: 8_000 }).outputEffort).toBe('low');
  });

  it('puts the adaptive effort into output_config of the request body', () => {
    const body = toMessageParams({ model: 'opus', maxTokens: 4_000, effort: 'standard', messages: [{ role: 'user', content: 'hi' }] });
    expect(body).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'medium' }, max_tokens: 4_000 });
  });

  it('sends adaptive thinking, never a budget, for every alias that resolves to an adaptive model (sonnet is Sonnet 4.6)', () => {
    expect(thinkingModeFor('claude-sonnet-4-6')).toBe('adaptive');
    for (const model of ['opus', 'sonnet']) {
      for (const effort of ['quick', 'standard', 'deep'] as const) {
        const body = toMessageParams({ model, maxTokens: 8_000, effort, messages: [{ role: 'user', content: 'hi' }] });
        expect(body.thinking).toEqual({ type: 'adaptive' });
      }
    }
    expect(toMessageParams({ model: 'sonnet', maxTokens: 8_000, effort: 'standard', messages: [] })).toMatchObject({
      model: 'claude-sonnet-4-6',
      output_config: { effort: 'medium' },
    });
  });

  it('turns a raw thinking budget into adaptive thinking on claude-opus-4-6 (thinking.type=enabled is deprecated there)', () => {
    const body = toMessageParams({ model: 'opus', maxTokens: 16_000, thinking: { type: 'enabled', budget_tokens: 10_000 }, messages: [{ role: 'user', content: 'hi' }] });
    expect(body.model).toBe('claude-opus-4-6');
    expect(body.thinking).toEqual({ type: 'adaptive' });
    expect(body.output_config).toEqual({ effort: 'medium' });
    expect(fitThinking({ type: 'enabled', budget_tokens: 1_024, display: 'omitted' }, 'claude-opus-4-6')).toEqual({
      thinking: { type: 'adaptive', display: 'omitted' },
      outputEffort: 'low',
    });
    expect(fitThinking({ type: 'enabled', budget_tokens: 60_000 }, 'claude-opus-4-6').outputEffort).toBe('high');
    // An effort the caller set explicitly wins over the one derived from the budget.
    const own = toMessageParams({ model: 'claude-opus-4-6', maxTokens: 16_000, thinking: { type: 'enabled', budget_tokens: 2_000 }, output_config: { effort: 'max' }, messages: [] });
    expect(own.output_config).toEqual({ effort: 'max' });
  });

  it('passes other raw thinking configs through, and budgets on budget models', () => {
    expect(toMessageParams({ model: 'opus', maxTokens: 1_000, thinking: { type: 'disabled' }, messages: [] }).thinking).toEqual({ type: 'disabled' });
    const older = toMessageParams({ model: 'claude-sonnet-4-5-20250929', maxTokens: 16_000, thinking: { type: 'enabled', budget_tokens: 10_000 }, messages: [] });
    expect(older.thinking).toEqual({ type: 'enabled', budget_tokens: 10_000 });
    expect(older.output_config).toBeUndefined();
  });
});
