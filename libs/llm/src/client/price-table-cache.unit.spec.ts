import type { PriceTable } from '@headspace/contracts';
import { waitFor } from '@headspace/testing';
import { describe, expect, it } from 'vitest';
import { PriceTableCache } from './price-table-cache';

const table = (version: number): PriceTable => ({
  version,
  currency: 'USD',
  multipliers: { cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1, batch: 0.5 },
  models: [{ id: 'claude-sonnet-4-6', tier: 'sonnet', aliases: ['sonnet'], effectiveFrom: '2026-01-01', inputPerMTok: 3, outputPerMTok: 15 }],
});

describe('PriceTableCache', () => {
  it('answers with no table until the first fetch, then the table in hand, fetching again in the background once it is old', async () => {
    let version = 0;
    let fetches = 0;
    const cache = new PriceTableCache(async () => (fetches++, table(++version)), 50);
    expect(cache.current()).toBeUndefined();
    await waitFor(() => cache.current()?.version === 1, { timeoutMs: 10_000, message: 'the first table' });
    expect(fetches).toBe(1);
    expect(cache.current()?.version).toBe(1); // fresh: no new fetch
    expect(fetches).toBe(1);
    await waitFor(() => cache.current()?.version === 2, { timeoutMs: 10_000, message: 'the table fetched again once old' });
  });

  it('keeps the last table through failures, logs one line per failure streak and retries after the max age, not per span', async () => {
    const lines: string[] = [];
    let fail = false;
    let fetches = 0;
    const cache = new PriceTableCache(
      async () => {
        fetches++;
        if (fail) throw new Error('no responders');
        return table(7);
      },
      60_000,
      (line) => lines.push(line),
    );
    await cache.refresh();
    fail = true;
    await cache.refresh();
    await cache.refresh();
    for (let i = 0; i < 100; i++) expect(cache.current()?.version).toBe(7);
    expect(fetches).toBe(3);
    expect(lines).toEqual(['price table for chat span costs unavailable: no responders']);
  });
});
