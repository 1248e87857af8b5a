import { readFileSync } from 'node:fs';
import { HeadspaceError } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { parsePriceTable, PriceBook } from './price-book';
import { DEFAULT_PRICES_FILE } from './price-catalog.service';

const shipped = readFileSync(DEFAULT_PRICES_FILE, 'utf8');

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return { code: (error as HeadspaceError).code, field: (error as HeadspaceError).field };
  }
  throw new Error('expected a throw');
};

describe('price table', () => {
  it('loads the shipped table with the multipliers of the seed', () => {
    const table = parsePriceTable(shipped, 'prices.yaml');
    expect(table.multipliers).toEqual({ cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1, batch: 0.5 });
  });

  it('resolves the tier aliases to the model ids of libs/llm (sonnet → Sonnet 4.6, Sonnet 4.5 retires 2026-11-30)', () => {
    const book = new PriceBook(parsePriceTable(shipped, 'prices.yaml'));
    expect(book.resolve('opus').id).toBe('claude-opus-4-6');
    expect(book.resolve('sonnet').id).toBe('claude-sonnet-4-6');
    expect(book.resolve('haiku').id).toBe('claude-haiku-4-5-20251001');
    expect(book.modelForTier('sonnet')).toBe('claude-sonnet-4-6');
  });

  it('still prices Sonnet 4.5 by its explicit ids, for older usage', () => {
    const book = new PriceBook(parsePriceTable(shipped, 'prices.yaml'));
    expect(book.resolve('claude-sonnet-4-5-20250929')).toMatchObject({ id: 'claude-sonnet-4-5-20250929', tier: 'sonnet', inputPerMTok: 3, outputPerMTok: 15 });
    expect(book.resolve('claude-sonnet-4-5').id).toBe('claude-sonnet-4-5-20250929');
    expect(book.resolve('claude-sonnet-4-6', new Date('2026-11-24T00:00:00Z'))).toMatchObject({ inputPerMTok: 3, outputPerMTok: 15 });
  });

  it('refuses an unknown model with COST.UNKNOWN_MODEL instead of pricing it at zero', () => {
    const book = new PriceBook(parsePriceTable(shipped, 'prices.yaml'));
    expect(codeOf(() => book.resolve('gpt-4o'))).toEqual({ code: 'COST.UNKNOWN_MODEL', field: 'model' });
  });

  it('uses the row in effect on the day of the call when a model has several', () => {
    const table = parsePriceTable(
      `version: 2
models:
  - { id: m, tier: haiku, aliases: [haiku], effectiveFrom: "2026-01-01", inputPerMTok: 1, outputPerMTok: 5 }
  - { id: m, tier: haiku, effectiveFrom: "2026-06-01", inputPerMTok: 2, outputPerMTok: 6 }`,
      'inline',
    );
    const book = new PriceBook(table);
    expect(book.resolve('m', new Date('2026-05-31T23:59:59Z')).inputPerMTok).toBe(1);
    expect(book.resolve('m', new Date('2026-06-01T00:00:00Z')).inputPerMTok).toBe(2);
    expect(book.resolve('haiku', new Date('2025-01-01T00:00:00Z')).inputPerMTok).toBe(1);
  });

  it('names the field of an invalid row', () => {
    const bad = `version: 1
models:
  - { id: m, tier: haiku, effectiveFrom: "2026-01-01", inputPerMTok: -1, outputPerMTok: 5 }`;
    expect(codeOf(() => parsePriceTable(bad, 'bad.yaml'))).toEqual({ code: 'COST.PRICE_TABLE_INVALID', field: 'models.0.inputPerMTok' });
  });

  it('refuses an alias that names two models', () => {
    const bad = `version: 1
models:
  - { id: a, tier: haiku, aliases: [fast], effectiveFrom: "2026-01-01", inputPerMTok: 1, outputPerMTok: 5 }
  - { id: b, tier: sonnet, aliases: [fast], effectiveFrom: "2026-01-01", inputPerMTok: 3, outputPerMTok: 15 }`;
    expect(codeOf(() => parsePriceTable(bad, 'bad.yaml'))).toEqual({ code: 'COST.PRICE_TABLE_INVALID', field: 'models.1.aliases' });
  });

  it('refuses text that is not YAML', () => {
    expect(codeOf(() => parsePriceTable('version: [1', 'broken.yaml')).code).toBe('COST.PRICE_TABLE_INVALID');
  });
});
