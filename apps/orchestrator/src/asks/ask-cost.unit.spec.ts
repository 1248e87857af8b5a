import type { PriceTable } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { askCost, microsToUsd } from './ask-cost';
import { askIdOfSession, askSessionIdFor } from './ask.process';

const row = (id: string, tier: 'haiku' | 'sonnet', inputPerMTok: number, outputPerMTok: number) => ({ id, aliases: [tier], tier, inputPerMTok, outputPerMTok, contextWindow: 200_000, effectiveFrom: '2025-01-01' });
const table = { version: 't', models: [row('claude-haiku-4-5', 'haiku', 1, 5), row('claude-sonnet-4-5', 'sonnet', 3, 15)], multipliers: { cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1, batch: 0.5 } } as unknown as PriceTable;
const usage = (input: number, output: number, cacheRead = 0) => ({ inputTokens: input, outputTokens: output, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: cacheRead });
const at = '2026-11-26T10:00:00.000Z';

describe('askCost', () => {
  it('prices each call on the model it ran on and sums the usage', () => {
    // haiku: 1000×$1 + 200×$5 per MTok = $0.002; sonnet (a downgrade the other way round, say): 1000×$3 + 1000×0.1×$3 + 100×$15 = $0.0048
    const { costUsd, usage: total } = askCost(table, [
      { model: 'claude-haiku-4-5', usage: usage(1_000, 200), at },
      { model: 'sonnet', usage: usage(1_000, 100, 1_000), at },
    ]);
    expect(costUsd).toBe('0.0068');
    expect(total).toEqual(usage(2_000, 300, 1_000));
  });

  it('leaves the cost unknown when a model is not in the table, rather than understating it', () => {
    expect(askCost(table, [{ model: 'mystery-model', usage: usage(10, 10), at }]).costUsd).toBeUndefined();
  });

  it('writes micro-dollars exactly', () => {
    expect([microsToUsd(0n), microsToUsd(2_700n), microsToUsd(1_500_000n)]).toEqual(['0', '0.0027', '1.5']);
  });
});

describe('ask session ids', () => {
  it('name their ask, and run session ids do not', () => {
    expect(askIdOfSession(askSessionIdFor('fix-the-typo-1a2b3c4d'))).toBe('fix-the-typo-1a2b3c4d');
    expect(askIdOfSession('r-42.task.T1.a1')).toBeUndefined();
  });
});
