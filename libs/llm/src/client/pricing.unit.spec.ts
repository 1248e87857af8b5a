import type { PriceTable } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { priceRowFor, usageCostUsd, workingWindowFor } from './pricing';
import { normaliseUsage } from './usage';

const table: PriceTable = {
  version: 3,
  currency: 'USD',
  multipliers: { cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1, batch: 0.5 },
  models: [
    { id: 'claude-opus-4-6', tier: 'opus', aliases: ['opus'], effectiveFrom: '2026-02-05', inputPerMTok: 5, outputPerMTok: 25, longContext: { thresholdInputTokens: 200_000, inputPerMTok: 10, outputPerMTok: 37.5 } },
    { id: 'claude-sonnet-4-6', tier: 'sonnet', aliases: ['sonnet'], effectiveFrom: '2026-02-17', inputPerMTok: 3, outputPerMTok: 15 },
    { id: 'claude-sonnet-4-6', tier: 'sonnet', aliases: ['sonnet'], effectiveFrom: '2026-10-01', inputPerMTok: 2, outputPerMTok: 10 },
  ],
};

/** 10,000 input, 2,000 output, 4,000 5-minute and 1,000 1-hour cache writes, 20,000 cache reads: 19,000·in + 2,000·out µ$. */
const usage = normaliseUsage({
  input_tokens: 10_000,
  output_tokens: 2_000,
  cache_read_input_tokens: 20_000,
  cache_creation: { ephemeral_5m_input_tokens: 4_000, ephemeral_1h_input_tokens: 1_000 },
});

describe('usageCostUsd', () => {
  it('prices a call at the row in effect on its day, cache writes and reads at their multiples of the input rate', () => {
    expect(usageCostUsd(table, 'claude-opus-4-6', usage, new Date('2026-11-26'))).toBe(0.145);
    expect(usageCostUsd(table, 'sonnet', usage, new Date('2026-09-30'))).toBe(0.087);
    expect(usageCostUsd(table, 'claude-sonnet-4-6', usage, new Date('2026-11-26'))).toBe(0.058);
  });

  it('bills a long-context call at the long-context rates and a Batch call at half', () => {
    const long = normaliseUsage({ input_tokens: 150_000, output_tokens: 1_000, cache_read_input_tokens: 60_000 });
    expect(usageCostUsd(table, 'opus', long)).toBe((150_000 * 10 + 60_000 * 1 + 1_000 * 37.5) / 1e6);
    const batch = normaliseUsage({ input_tokens: 1_000, output_tokens: 1_000, service_tier: 'batch' });
    expect(usageCostUsd(table, 'opus', batch)).toBe(0.015);
  });

  it('has no price for a model the table does not list', () => {
    expect(usageCostUsd(table, 'claude-haiku-4-5-20251001', usage)).toBeUndefined();
    expect(priceRowFor(table, 'haiku')).toBeUndefined();
  });
});

describe('workingWindowFor', () => {
  it('caps a 1M window at the long-context price step of the model’s row', () => {
    expect(workingWindowFor('opus', 1_000_000, table)).toBe(200_000);
  });

  it('keeps the model’s window when its row has no step, the table does not price it, or there is no table', () => {
    expect(workingWindowFor('claude-sonnet-4-6', 1_000_000, table)).toBe(1_000_000);
    expect(workingWindowFor('claude-unknown-9', 300_000, table)).toBe(300_000);
    expect(workingWindowFor('claude-opus-4-6', 1_000_000, undefined)).toBe(1_000_000);
  });

  it('keeps a window already below the step', () => {
    expect(workingWindowFor('claude-opus-4-6', 150_000, table)).toBe(150_000);
  });

  it('takes the window from the model’s row when the table carries one, then caps it at the row’s step', () => {
    const withWindows: PriceTable = {
      ...table,
      models: [
        { id: 'claude-opus-5', tier: 'opus', aliases: [], effectiveFrom: '2026-07-24', inputPerMTok: 5, outputPerMTok: 25, contextWindow: 1_000_000 },
        { id: 'claude-haiku-5-5', tier: 'haiku', aliases: [], effectiveFrom: '2026-10-07', inputPerMTok: 0.1, outputPerMTok: 0.5, contextWindow: 1_000_000, longContext: { thresholdInputTokens: 100_000, inputPerMTok: 0.5, outputPerMTok: 2.5 } },
      ],
    };
    // The caller's fallback (200K for a model libs/llm does not know) gives way to the row's 1M.
    expect(workingWindowFor('claude-opus-5', 200_000, withWindows)).toBe(1_000_000);
    expect(workingWindowFor('claude-haiku-5-5', 200_000, withWindows)).toBe(100_000);
  });
});
