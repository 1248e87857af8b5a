import { readFileSync } from 'node:fs';
import { installedSdkModels, thinkingModeFor, workingWindowFor } from '@headspace/llm';
import { describe, expect, it } from 'vitest';
import { parsePriceTable, PriceBook } from './price-book';
import { DEFAULT_PRICES_FILE } from './price-catalog.service';

const table = parsePriceTable(readFileSync(DEFAULT_PRICES_FILE, 'utf8'), 'prices.yaml');
const book = new PriceBook(table);
const sdk = installedSdkModels();
const priced = (name: string) => table.models.some((m) => m.id === name || m.aliases.includes(name));

/**
 * SDK model ids the shipped table leaves out on purpose. Each needs a reason; an SDK upgrade that
 * adds a model fails this spec until the model is priced (from the official pages) or listed here.
 */
const NOT_PRICED: Record<string, string> = {
  // Invitation-only research preview, retired 2026-06-30 (the SDK's DEPRECATED_MODELS); no row on the pricing page.
  'claude-mythos-preview': 'retired research preview',
  // The official models overview lists Fable 5.2 at $8 / $40 per MTok, but the pages at hand give
  // no cache write or read rates for it or for Mythos 5.2: not priced until they do.
  'claude-fable-5-2': 'cache rates not published in the docs at hand',
  'claude-mythos-5-2': 'cache rates not published in the docs at hand',
};

describe(`the shipped price table against the installed @anthropic-ai/sdk ${sdk.version}`, () => {
  it('reads the SDK’s model ids, deprecations and thinking warnings', () => {
    expect(sdk.ids).toContain('claude-opus-4-6');
    expect(sdk.deprecated['claude-sonnet-4-5']).toBe('2026-11-30');
    expect(sdk.warnOnEnabledThinking).toContain('claude-opus-4-6');
  });

  it('prices every model the SDK names, or lists it with a reason', () => {
    const missing = sdk.ids.filter((id) => !priced(id) && !(id in NOT_PRICED));
    expect(missing).toEqual([]);
  });

  it('keeps the exclusion list honest: nothing listed there is priced or unknown to the SDK', () => {
    for (const id of Object.keys(NOT_PRICED)) {
      expect(priced(id), id).toBe(false);
      expect(sdk.ids, id).toContain(id);
    }
  });

  it('carries the SDK’s end-of-life date as `retiresOn` for every priced model the SDK deprecates', () => {
    for (const [id, endOfLife] of Object.entries(sdk.deprecated)) {
      if (id in NOT_PRICED) continue;
      expect(book.resolve(id).retiresOn, id).toBe(endOfLife);
    }
  });

  it('gives every SDK model it prices a window, an output limit and a thinking mode', () => {
    for (const id of sdk.ids.filter(priced)) {
      const row = book.resolve(id);
      expect({ id, window: row.contextWindow! > 0, output: row.maxOutputTokens! > 0, thinking: row.thinking !== undefined }).toEqual({ id, window: true, output: true, thinking: true });
    }
  });

  it('agrees with the LLM client on how each model thinks, and never calls a model the SDK warns for extended', () => {
    for (const row of table.models.filter((m) => m.thinking)) {
      expect({ id: row.id, mode: thinkingModeFor(row.id) }).toEqual({ id: row.id, mode: row.thinking === 'extended' ? 'budget' : 'adaptive' });
    }
    for (const id of sdk.warnOnEnabledThinking) {
      expect(thinkingModeFor(id), id).toBe('adaptive');
      if (priced(id)) expect(book.resolve(id).thinking, id).not.toBe('extended');
    }
  });

  it('hands a session off within each model’s window and under its long-context step', () => {
    // 200K default: what libs/llm assumes for a model it has no window for.
    const window = (id: string) => workingWindowFor(id, 200_000, table);
    expect(window('claude-sonnet-4-6')).toBe(200_000); // 1M window, 200K price step: unchanged from v2
    expect(window('claude-opus-4-6')).toBe(200_000);
    expect(window('claude-haiku-4-5-20251001')).toBe(200_000);
    expect(window('claude-haiku-5-5')).toBe(100_000); // its price band steps up past 100K
    expect(window('claude-opus-5')).toBe(1_000_000); // flat price over the whole 1M window
    expect(window('claude-fable-5-1')).toBe(1_000_000);
  });
});
