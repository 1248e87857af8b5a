import { describe, expect, it } from 'vitest';
import { toMessageParams } from './client';
import { refusesThinkingBudget, thinkingModeFor } from './effort';
import { installedSdkModels } from './sdk-models';

const sdk = installedSdkModels();
/** The SDK's models whose official pages say "Thinking: Extended": they take a token budget. */
const EXTENDED = ['claude-haiku-4-5', 'claude-haiku-4-5-20251001', 'claude-opus-4-5', 'claude-opus-4-5-20251101', 'claude-sonnet-4-5', 'claude-sonnet-4-5-20250929'];
const messages = [{ role: 'user' as const, content: 'x' }];

describe('the request builder on every model the installed SDK names', () => {
  it('knows every extended model by name (the rest of the SDK’s models think adaptively)', () => {
    expect(EXTENDED.filter((id) => !sdk.ids.includes(id))).toEqual([]);
    expect(sdk.ids.length).toBeGreaterThan(EXTENDED.length);
  });

  it.each(sdk.ids.filter((id) => !EXTENDED.includes(id)))('sends adaptive thinking with the effort in output_config, never a budget, to %s', (model) => {
    const body = toMessageParams({ model, effort: 'deep', maxTokens: 16_000, messages });
    expect({ thinking: body.thinking, outputConfig: body.output_config, maxTokens: body.max_tokens }).toEqual({
      thinking: { type: 'adaptive' },
      outputConfig: { effort: /haiku/.test(model) ? 'low' : 'high' },
      maxTokens: 16_000,
    });
  });

  it.each(EXTENDED)('keeps extended thinking with the effort’s budget_tokens and no output_config on %s', (model) => {
    const body = toMessageParams({ model, effort: 'deep', maxTokens: 4_000, messages });
    const budget = /haiku/.test(model) ? 2_000 : 50_000;
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: budget });
    expect(body.max_tokens).toBeGreaterThan(budget);
    expect(body.output_config).toBeUndefined();
  });

  it('turns a caller’s raw budget into adaptive thinking on every model the SDK warns for `enabled`', () => {
    for (const model of sdk.warnOnEnabledThinking) {
      const body = toMessageParams({ model, maxTokens: 16_000, thinking: { type: 'enabled', budget_tokens: 8_000 }, messages });
      expect({ model, thinking: body.thinking, effort: body.output_config?.effort }).toEqual({ model, thinking: { type: 'adaptive' }, effort: 'medium' });
    }
  });

  it('tells the models that refuse a budget (Opus 4.7 on, the 5 generation) from those where it is only deprecated', () => {
    expect(['claude-opus-4-6', 'claude-sonnet-4-6', 'claude-mythos-preview', 'claude-haiku-4-5'].map(refusesThinkingBudget)).toEqual([false, false, false, false]);
    expect(['claude-opus-4-7', 'claude-opus-4-8', 'claude-sonnet-5', 'claude-haiku-5-5', 'claude-fable-5-1'].map(refusesThinkingBudget)).toEqual([true, true, true, true, true]);
    expect(thinkingModeFor('claude-sonnet-5-5')).toBe('adaptive');
  });
});
