import { describe, expect, it } from 'vitest';
import { loadConfig } from '@headspace/platform';
import { configSchema, SERVICE } from '../../config';
import { contextWindowFor, type LlmClient } from '@headspace/llm';
import type { PriceTable } from '@headspace/contracts';
import { handoffThresholdOf } from './handoff-threshold';
import { LlmModelPort } from './llm-model.adapter';

const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x', NATS_URL: 'nats://127.0.0.1:4222' };
const threshold = (extra: Record<string, string>) => handoffThresholdOf(loadConfig(configSchema, { ...env, ...extra }, SERVICE));

describe('the handoff threshold of a session', () => {
  it('is SESSION_HANDOFF_THRESHOLD, 0.8 by default', () => {
    expect(threshold({})).toBe(0.8);
    expect(threshold({ SESSION_HANDOFF_THRESHOLD: '0.6' })).toBe(0.6);
  });

  it('follows HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE, then the seed’s BRAINMASS_ name, over configuration', () => {
    expect(threshold({ SESSION_HANDOFF_THRESHOLD: '0.6', HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE: '50' })).toBe(0.5);
    expect(threshold({ BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE: '70' })).toBe(0.7);
    expect(threshold({ HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE: '40', BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE: '70' })).toBe(0.4);
  });

  it('refuses an override outside 1–100 at start, naming the variable', () => {
    expect(() => threshold({ HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE: '150' })).toThrow(/HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE/);
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
