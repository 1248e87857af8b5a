import { describe, expect, it } from 'vitest';
import { PromptCache } from './prompt-cache';
import type { Segment } from './request';

const seg = (key: string, tokens: number, ttl?: '5m' | '1h'): Segment => ({ key, tokens, ...(ttl ? { ttl } : {}) });

describe('simulator prompt cache', () => {
  it('writes each breakpoint’s new tokens with its ttl, then reads the longest cached prefix', () => {
    let now = 0;
    const cache = new PromptCache(() => now);
    const req = [seg('tools', 100, '1h'), seg('system', 300, '1h'), seg('hooks', 50, '5m'), seg('q1', 7)];
    expect(cache.apply('m', req)).toEqual({
      input_tokens: 7,
      cache_creation_input_tokens: 450,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 50, ephemeral_1h_input_tokens: 400 },
    });
    now += 1_000;
    const changedHooks = [seg('tools', 100, '1h'), seg('system', 300, '1h'), seg('hooks v2', 60, '5m'), seg('q2', 9)];
    expect(cache.apply('m', changedHooks)).toEqual({
      input_tokens: 9,
      cache_creation_input_tokens: 60,
      cache_read_input_tokens: 400,
      cache_creation: { ephemeral_5m_input_tokens: 60, ephemeral_1h_input_tokens: 0 },
    });
  });

  it('keys the cache by model and lets entries expire after their ttl', () => {
    let now = 0;
    const cache = new PromptCache(() => now);
    const req = [seg('system', 100, '5m'), seg('q', 1)];
    cache.apply('m', req);
    expect(cache.apply('other-model', req).cache_read_input_tokens).toBe(0);
    now += 4 * 60_000;
    expect(cache.apply('m', req).cache_read_input_tokens).toBe(100); // read refreshes the ttl
    now += 4 * 60_000;
    expect(cache.apply('m', req).cache_read_input_tokens).toBe(100);
    now += 6 * 60_000;
    expect(cache.apply('m', req)).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 100 });
  });

  it('reports everything as plain input without breakpoints', () => {
    const cache = new PromptCache();
    expect(cache.apply('m', [seg('a', 10), seg('b', 5)])).toMatchObject({ input_tokens: 15, cache_creation_input_tokens: 0 });
    expect(cache.size).toBe(0);
  });
});
