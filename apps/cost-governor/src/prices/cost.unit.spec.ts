import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { costOf } from '@headspace/contracts';
import { parsePriceTable, PriceBook } from './price-book';
import { DEFAULT_PRICES_FILE } from './price-catalog.service';

const book = new PriceBook(parsePriceTable(readFileSync(DEFAULT_PRICES_FILE, 'utf8'), 'prices.yaml'));
const m = book.table.multipliers;

/**
 * One call of 10,000 input (uncached), 2,000 output, 4,000 5-minute cache writes, 1,000 1-hour
 * cache writes and 20,000 cache reads. At `in`/`out` USD per MTok (= micro-dollars per token):
 * 10,000·in + 4,000·1.25·in + 1,000·2·in + 20,000·0.1·in + 2,000·out = 19,000·in + 2,000·out µ$.
 */
const call = { inputTokens: 10_000, outputTokens: 2_000, cacheWrite5mTokens: 4_000, cacheWrite1hTokens: 1_000, cacheReadTokens: 20_000 };

const handComputed: Array<[model: string, standardMicros: bigint, batchMicros: bigint]> = [
  // Fable 5.1 / Mythos 5.1 read the cache at 0.025·in: 17,000·10 + 20,000·0.25 + 2,000·50
  ['claude-fable-5-1', 275_000n, 137_500n],
  ['claude-mythos-5-1', 275_000n, 137_500n],
  ['claude-fable-5', 290_000n, 145_000n], // 19,000·10 + 2,000·50
  ['claude-mythos-5', 290_000n, 145_000n],
  ['claude-opus-5-5', 112_000n, 56_000n], // cache reads at 0.05·in: 17,000·4 + 20,000·0.2 + 2,000·20
  ['claude-opus-5', 145_000n, 72_500n],
  ['claude-opus-4-8', 145_000n, 72_500n],
  ['claude-opus-4-7', 145_000n, 72_500n],
  ['claude-opus-4-6', 145_000n, 72_500n], // 19,000·5 + 2,000·25
  ['claude-opus-4-5-20251101', 145_000n, 72_500n],
  ['claude-opus-4-1-20250805', 435_000n, 217_500n], // 19,000·15 + 2,000·75
  ['claude-opus-4-20250514', 435_000n, 217_500n],
  ['claude-sonnet-5-5', 58_000n, 29_000n], // 19,000·2 + 2,000·10
  ['claude-sonnet-5', 58_000n, 29_000n],
  ['claude-sonnet-4-6', 87_000n, 43_500n], // 19,000·3 + 2,000·15
  ['claude-sonnet-4-5-20250929', 87_000n, 43_500n],
  ['claude-sonnet-4-20250514', 87_000n, 43_500n],
  ['claude-3-7-sonnet-20250219', 87_000n, 43_500n],
  ['claude-3-5-sonnet-20241022', 87_000n, 43_500n],
  ['claude-haiku-5-5', 2_900n, 1_450n], // 19,000·0.1 + 2,000·0.5 (35,000 input tokens: the low band)
  ['claude-haiku-4-5-20251001', 29_000n, 14_500n], // 19,000·1 + 2,000·5
  ['claude-3-5-haiku-20241022', 23_200n, 11_600n], // 19,000·0.8 + 2,000·4
];

describe('cost formula', () => {
  it('covers every model row of the shipped price table', () => {
    expect(handComputed.map(([id]) => id).sort()).toEqual(book.table.models.map((row) => row.id).sort());
  });

  it.each(handComputed)('prices %s with cache writes, cache reads and output as computed by hand', (model, standard) => {
    expect(costOf(book.resolve(model), m, call, false)).toEqual({ micros: standard, longContext: false });
  });

  it.each(handComputed)('halves the %s call on the Batch API', (model, _standard, batch) => {
    expect(costOf(book.resolve(model), m, call, true).micros).toBe(batch);
  });

  it('bills every token of a Sonnet 4.6 or 4.5 call above 200k input tokens at the long-context rates', () => {
    // 150,000·6 + 40,000·7.5 + 20,000·0.6 + 10,000·22.5 = 1,437,000 µ$
    const long = { inputTokens: 150_000, outputTokens: 10_000, cacheWrite5mTokens: 40_000, cacheWrite1hTokens: 0, cacheReadTokens: 20_000 };
    expect(costOf(book.resolve('sonnet'), m, long, false)).toEqual({ micros: 1_437_000n, longContext: true });
    expect(costOf(book.resolve('sonnet'), m, long, true).micros).toBe(718_500n);
    expect(costOf(book.resolve('claude-sonnet-4-5-20250929'), m, long, false)).toEqual({ micros: 1_437_000n, longContext: true });
    // Opus 4.6: 150,000·10 + 40,000·12.5 + 20,000·1 + 10,000·37.5 = 2,395,000 µ$
    expect(costOf(book.resolve('opus'), m, long, false)).toEqual({ micros: 2_395_000n, longContext: true });
  });

  it('keeps the standard rates at exactly the 200k threshold and on models without a premium', () => {
    const atThreshold = { inputTokens: 200_000, outputTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 };
    expect(costOf(book.resolve('sonnet'), m, atThreshold, false)).toEqual({ micros: 600_000n, longContext: false });
    const big = { ...atThreshold, inputTokens: 300_000 };
    expect(costOf(book.resolve('haiku'), m, big, false)).toEqual({ micros: 300_000n, longContext: false });
  });

  it('bills every token of a Haiku 5.5 call whose prompt is over 100,000 tokens at the upper band', () => {
    const haiku55 = book.resolve('claude-haiku-5-5');
    // 60,000·0.5 + 40,000·0.625 + 10,000·1 + 20,000·0.05 + 1,000·2.5 = 68,500 µ$
    const over = { inputTokens: 60_000, outputTokens: 1_000, cacheWrite5mTokens: 40_000, cacheWrite1hTokens: 10_000, cacheReadTokens: 20_000 };
    expect(costOf(haiku55, m, over, false)).toEqual({ micros: 68_500n, longContext: true });
    const atStep = { inputTokens: 100_000, outputTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 };
    expect(costOf(haiku55, m, atStep, false)).toEqual({ micros: 10_000n, longContext: false });
  });

  it('rounds once per call, half up, on exact integer sub-micro-dollar amounts', () => {
    const haiku35 = book.resolve('claude-3-5-haiku-20241022');
    const reads = (n: number) => ({ inputTokens: 0, outputTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: n });
    expect(costOf(haiku35, m, reads(6), false).micros).toBe(0n); // 0.48 µ$
    expect(costOf(haiku35, m, reads(7), false).micros).toBe(1n); // 0.56 µ$
    expect(costOf(haiku35, m, reads(1_000_000), false).micros).toBe(80_000n); // $0.08
  });

  it('charges nothing for a call without tokens', () => {
    const none = { inputTokens: 0, outputTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 };
    expect(costOf(book.resolve('opus'), m, none, false).micros).toBe(0n);
  });
});
