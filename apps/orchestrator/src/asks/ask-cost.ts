import { costOf, type PriceTable, type SessionUsage } from '@headspace/contracts';
import { priceRowFor } from '@headspace/llm';

/** One model call of the ask's session as its stream recorded it. */
export interface AskModelCall {
  model: string;
  usage: SessionUsage;
  at: string;
}

const ZERO: SessionUsage = { inputTokens: 0, outputTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 };

/**
 * What the ask cost at the price table's rates: each call priced on the model it actually ran on
 * (a budget downgrade shows up here) with the cost governor's own formula, summed in micro-dollars.
 * A model the table does not price makes the cost unknown rather than understated.
 */
export function askCost(table: PriceTable, calls: readonly AskModelCall[]): { costUsd?: string; usage: SessionUsage } {
  let micros = 0n;
  let priced = true;
  const usage = { ...ZERO };
  for (const call of calls) {
    for (const key of Object.keys(usage) as Array<keyof SessionUsage>) usage[key] += call.usage[key];
    const row = priceRowFor(table, call.model, new Date(call.at));
    if (!row) priced = false;
    else micros += costOf(row, table.multipliers, call.usage, false).micros;
  }
  return { ...(priced ? { costUsd: microsToUsd(micros) } : {}), usage };
}

/** `2700n` → `"0.0027"`: exact, without trailing zeros. */
export function microsToUsd(micros: bigint): string {
  const whole = micros / 1_000_000n;
  const frac = (micros % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
}
