import type { ModelPrice, PriceTable } from './price.contracts';
import type { UsageTokens } from './usage.contracts';

export interface CostInput {
  inputTokens: number;
  outputTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
  cacheReadTokens: number;
}

export interface Cost {
  /** Integer micro-dollars, rounded half-up once for the whole call. */
  micros: bigint;
  longContext: boolean;
}

const PER_MILLION = 1_000_000;

/** USD per MTok → integer micro-dollars per MTok (price tables carry at most 6 decimals). */
const scaled = (usd: number) => BigInt(Math.round(usd * PER_MILLION));
const times = (rate: bigint, multiplier: number) => BigInt(Math.round(Number(rate) * multiplier));

/**
 * The price of one call, seed 003 Req 4.6 with the cache and batch terms:
 *   input×in + cacheWrite5m×1.25in + cacheWrite1h×2in + cacheRead×0.1in + output×out, ×0.5 on Batch,
 * (a model's own `cacheReadMultiplier` replaces the 0.1),
 * where `input` excludes cached tokens and a long-context row replaces both rates for the whole call
 * once input + cache writes + cache reads exceed its threshold. Thinking tokens are inside output.
 * Exact integer arithmetic: tokens × micro-dollars-per-MTok is in pico-dollars; one rounding at the end.
 * Published here so a caller's own figure (the LLM client's `headspace.cost.usd` on a `chat` span)
 * is the very sum the cost governor settles budgets with.
 */
export function costOf(price: ModelPrice, multipliers: PriceTable['multipliers'], tokens: CostInput | UsageTokens, batch: boolean): Cost {
  const totalInput = tokens.inputTokens + tokens.cacheWrite5mTokens + tokens.cacheWrite1hTokens + tokens.cacheReadTokens;
  const longContext = price.longContext !== undefined && totalInput > price.longContext.thresholdInputTokens;
  const inRate = scaled(longContext ? price.longContext!.inputPerMTok : price.inputPerMTok);
  const outRate = scaled(longContext ? price.longContext!.outputPerMTok : price.outputPerMTok);
  const pico =
    BigInt(tokens.inputTokens) * inRate +
    BigInt(tokens.cacheWrite5mTokens) * times(inRate, multipliers.cacheWrite5m) +
    BigInt(tokens.cacheWrite1hTokens) * times(inRate, multipliers.cacheWrite1h) +
    BigInt(tokens.cacheReadTokens) * times(inRate, price.cacheReadMultiplier ?? multipliers.cacheRead) +
    BigInt(tokens.outputTokens) * outRate;
  const factor = batch ? scaled(multipliers.batch) : BigInt(PER_MILLION);
  const scaledPico = pico * factor; // pico-dollars × 1e6
  const divisor = 1_000_000_000_000n; // → micro-dollars
  return { micros: (scaledPico + divisor / 2n) / divisor, longContext };
}
