import { costOf, type ModelPrice, type PriceTable } from '@headspace/contracts';
import type { LlmUsage } from './usage';

/** The row of `model` (id or alias) in effect on `at`, or undefined when the table does not price it. */
export function priceRowFor(table: PriceTable, model: string, at: Date = new Date()): ModelPrice | undefined {
  const day = at.toISOString().slice(0, 10);
  const rows = table.models.filter((row) => row.id === model || row.aliases.includes(model)).sort((a, b) => a.effectiveFrom.localeCompare(b.effectiveFrom));
  let chosen = rows[0];
  for (const row of rows) if (row.effectiveFrom <= day) chosen = row;
  return chosen;
}

/** USD of one model call's usage at the table's prices; undefined for a model the table does not price. */
export function usageCostUsd(table: PriceTable, model: string, usage: LlmUsage, at: Date = new Date()): number | undefined {
  const row = priceRowFor(table, model, at);
  if (!row) return undefined;
  const cost = costOf(
    row,
    table.multipliers,
    {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cacheWrite5mTokens: usage.cacheCreation5mTokens,
      cacheWrite1hTokens: usage.cacheCreation1hTokens,
      cacheReadTokens: usage.cacheReadTokens,
    },
    usage.serviceTier === 'batch',
  );
  return Number(cost.micros) / 1_000_000;
}

/**
 * The context a session should work in on `model`: the model's window (the table's `contextWindow`
 * for it, else `window`), capped at the table's long-context price step (seed 003 Req 2.5: past it
 * every token of a request costs the higher rate, so a session on a 1M-window model hands off as if
 * its window were the step). Without a table, or for a model it does not price, `window`.
 */
export function workingWindowFor(model: string, window: number, table: PriceTable | undefined, at: Date = new Date()): number {
  const row = table ? priceRowFor(table, model, at) : undefined;
  const modelWindow = row?.contextWindow ?? window;
  const step = row?.longContext?.thresholdInputTokens;
  return step === undefined ? modelWindow : Math.min(modelWindow, step);
}
