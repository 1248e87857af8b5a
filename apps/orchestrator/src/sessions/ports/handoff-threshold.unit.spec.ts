import { describe, expect, it } from 'vitest';
import { loadConfig } from '@headspace/platform';
import { configSchema, SERVICE } from '../../config';
import { contextWindowFor, type LlmClient } from '@headspace/llm';
import type { PriceTable } from '@headspace/contracts';
import { compactThresholdOf, handoffThresholdOf } from './handoff-threshold';
import { LlmModelPort } from './llm-model.adapter';

const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x', NATS_URL: 'nats://127.0.0.1:4222' };
const threshold = (extra: Record<string, string>) => handoffThresholdOf(loadConfig(configSchema, { ...env, ...extra }, SERVICE));
const compactAt = (extra: Record<string, string>, window = 200_000) => compactThresholdOf(loadConfig(configSchema, { ...env, ...extra }, SERVICE), window);

describe('the handoff threshold of a session', () => {
  it('is SESSION_HANDOFF_THRESHOLD, 0.8 by default', () => {
    expect(threshold({})).toBe(0.8);
    expect(threshold({ SESSION_HANDOFF_THRESHOLD: '0.6' })).toBe(0.6);
  });

  it('is not moved by the compaction override (that one is the compaction threshold)', () => {
    expect(threshold({ SESSION_HANDOFF_THRESHOLD: '0.6', CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '50' })).toBe(0.6);
  });
});

describe('the compaction threshold of a session', () => {
  it('is the seed’s default for the window: 83.5% of 200K, 85% of 1M', () => {
    expect(compactAt({})).toBe(0.835);
    expect(compactAt({}, 1_000_000)).toBe(0.85);
  });

  it('follows HEADSPACE_, then Claude Code’s CLAUDE_, then the seed’s BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE', () => {
    expect(compactAt({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '50' })).toBe(0.5);
    expect(compactAt({ BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE: '70' })).toBe(0.7);
    expect(compactAt({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '60', BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE: '70' })).toBe(0.6);
    expect(compactAt({ HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE: '40', CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '60' })).toBe(0.4);
  });

  it('refuses an override outside 1–100 at start, naming the variable', () => {
    expect(() => compactAt({ HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE: '150' })).toThrow(/HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE/);
    expect(() => compactAt({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '0' })).toThrow(/CLAUDE_AUTOCOMPACT_PCT_OVERRIDE/);
  });
});

describe('the working window a session hands off in', () => {
  const table: PriceTable = {
    version: 1,
    currency: 'USD',
    multipliers: { cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1, batch: 0.5 },
    models: [{ id: 'claude-sonnet-4-6', tier: 'sonnet', aliases: ['sonnet'], effectiveFrom: '2026-01-01', inputPerMTok: 3, outputPerMTok: 15, longContext: { thresholdInputTokens: 200_000, inputPerMTok: 6, outputPerMTok: 22.5 } }],
  };

  it('stays under the long-context price step on a 1M-window model: 80 % hands off at 160K, not 800K', () => {
    const port = new LlmModelPort({} as LlmClient, undefined, () => table);
    expect(contextWindowFor('claude-sonnet-4-6')).toBe(1_000_000);
    expect(port.contextWindow('claude-sonnet-4-6') * 0.8).toBe(160_000);
  });

  it('is the model’s window until the governor’s price table is in hand', () => {
    expect(new LlmModelPort({} as LlmClient, undefined, () => undefined).contextWindow('claude-sonnet-4-6')).toBe(1_000_000);
  });
});
