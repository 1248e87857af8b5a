import { readFileSync } from 'node:fs';
import { getPrices, recordUsage, updatePrices } from '@headspace/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCostGovernor, type CostGovernorHarness } from '../testing/cost-governor-harness';
import { parsePriceTable } from './price-book';
import { DEFAULT_PRICES_FILE } from './price-catalog.service';

const attribution = { sessionId: 's', persona: 'con', team: 't', project: 'p', surface: 'api' as const };
const shipped = parsePriceTable(readFileSync(DEFAULT_PRICES_FILE, 'utf8'), 'prices.yaml');

describe('prices as data', () => {
  let h: CostGovernorHarness;

  beforeAll(async () => {
    h = await startCostGovernor('prices');
  });

  afterAll(async () => {
    await h?.close();
  });

  it('publishes the shipped file with its version at start, once even with a second instance', async () => {
    await h.addInstance();
    expect((await h.send(getPrices, {})).table.version).toBe(shipped.version);
    const { rows } = await h.db.pool.query(`SELECT data ->> 'source' AS source FROM cost_governor.events WHERE type = 'price-table.published'`);
    expect(rows).toEqual([{ source: 'file' }]);
  });

  it('takes a newer table by command, without a release, and stamps usage with its version', async () => {
    const table = {
      ...shipped,
      version: shipped.version + 1,
      models: shipped.models.map((m) => (m.id === 'claude-haiku-4-5-20251001' ? { ...m, inputPerMTok: 2, outputPerMTok: 10 } : m)),
    };
    expect(await h.send(updatePrices, { table, publishedBy: 'finance' })).toMatchObject({ version: shipped.version + 1 });
    // Either instance may answer: both price with v2 at once.
    for (let i = 0; i < 4; i++) {
      const reply = await h.send(recordUsage, { attribution, model: 'haiku', tokens: { inputTokens: 1_000, outputTokens: 1_000 } });
      expect(reply).toMatchObject({ priceVersion: shipped.version + 1, costMicros: '12000' });
    }
  });

  it('refuses a table whose version is not newer, and an invalid one, naming the field', async () => {
    const stale = await h.sendError(updatePrices, { table: { ...shipped, version: shipped.version + 1 }, publishedBy: 'finance' });
    expect({ code: stale.code, field: stale.field }).toEqual({ code: 'COST.PRICE_VERSION_NOT_NEWER', field: 'table.version' });
    const invalid = await h.sendError(updatePrices, { table: { ...shipped, version: shipped.version + 2, models: [] }, publishedBy: 'finance' });
    expect({ code: invalid.code, field: invalid.field }).toEqual({ code: 'CONTRACTS.VALIDATION_FAILED', field: 'table.models' });
    expect((await h.send(getPrices, {})).table.version).toBe(shipped.version + 1);
  });
});
