import { describe, expect, it } from 'vitest';
import { addUsage, normaliseUsage } from './usage';

describe('usage normalisation', () => {
  it('takes the 5m/1h cache-write split from usage.cache_creation', () => {
    const u = normaliseUsage({
      input_tokens: 50,
      output_tokens: 20,
      cache_creation_input_tokens: 1_300,
      cache_read_input_tokens: 4_000,
      cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 1_000 },
      service_tier: 'standard',
    });
    expect(u).toEqual({
      inputTokens: 50,
      outputTokens: 20,
      cacheCreation5mTokens: 300,
      cacheCreation1hTokens: 1_000,
      cacheCreationTokens: 1_300,
      cacheReadTokens: 4_000,
      totalInputTokens: 5_350,
      serviceTier: 'standard',
    });
  });

  it('falls back to cache_creation_input_tokens as 5m writes when the breakdown is missing', () => {
    const u = normaliseUsage({ input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 700, cache_creation: null });
    expect(u.cacheCreation5mTokens).toBe(700);
    expect(u.cacheCreation1hTokens).toBe(0);
    expect(u.cacheReadTokens).toBe(0);
    expect(u.serviceTier).toBeNull();
  });

  it('treats missing or null counters as zero', () => {
    expect(normaliseUsage(undefined).totalInputTokens).toBe(0);
    expect(normaliseUsage({ input_tokens: 3, output_tokens: 4, cache_read_input_tokens: null }).cacheReadTokens).toBe(0);
  });

  it('adds usages field by field', () => {
    const a = normaliseUsage({ input_tokens: 1, output_tokens: 2, cache_read_input_tokens: 3 });
    const b = normaliseUsage({ input_tokens: 10, output_tokens: 20, cache_creation_input_tokens: 30, service_tier: 'priority' });
    expect(addUsage(a, b)).toMatchObject({
      inputTokens: 11,
      outputTokens: 22,
      cacheReadTokens: 3,
      cacheCreation5mTokens: 30,
      totalInputTokens: 44,
      serviceTier: 'priority',
    });
  });
});
