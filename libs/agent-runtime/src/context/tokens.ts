/**
 * Token accounting per turn. Without the API's numbers we estimate ~4 characters per token (the
 * usual rule of thumb for English and code); once a model call reports usage, its numbers win.
 */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** The usage block of an Anthropic Messages API response (snake_case as the API sends it). */
export interface ApiUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

export interface TurnTokens {
  turn: number;
  /** Our estimate of what the turn added to the context. */
  estimatedTokens: number;
  /** The API's numbers for the call of this turn, when known. */
  usage?: ApiUsage;
}

/** Context size the API saw for a call: everything it read (fresh, cache-read, cache-written) plus what it wrote. */
export function contextTokensFromUsage(usage: ApiUsage): number {
  return usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + usage.output_tokens;
}

export class TurnTokenCounter {
  private readonly turns = new Map<number, TurnTokens>();

  addEstimate(turn: number, text: string): number {
    const tokens = estimateTokens(text);
    const entry = this.turns.get(turn) ?? { turn, estimatedTokens: 0 };
    entry.estimatedTokens += tokens;
    this.turns.set(turn, entry);
    return tokens;
  }

  /** Hook for the API's usage numbers: once known they replace the estimate for the context size. */
  recordUsage(turn: number, usage: ApiUsage): void {
    const entry = this.turns.get(turn) ?? { turn, estimatedTokens: 0 };
    entry.usage = { ...usage };
    this.turns.set(turn, entry);
  }

  perTurn(): TurnTokens[] {
    return [...this.turns.values()].sort((a, b) => a.turn - b.turn);
  }

  /**
   * Tokens in the context now: the last call the API measured, plus our estimate of what was added
   * in later turns; with no measurement at all, the sum of estimates.
   */
  contextTokens(): number {
    const turns = this.perTurn();
    let lastMeasured = -1;
    for (let i = turns.length - 1; i >= 0; i--) {
      if (turns[i].usage) {
        lastMeasured = i;
        break;
      }
    }
    if (lastMeasured < 0) return turns.reduce((sum, t) => sum + t.estimatedTokens, 0);
    const measured = contextTokensFromUsage(turns[lastMeasured].usage as ApiUsage);
    return measured + turns.slice(lastMeasured + 1).reduce((sum, t) => sum + t.estimatedTokens, 0);
  }

  /** Share of input tokens served from the prompt cache, over every measured turn (0 when none). */
  cacheHitRate(): number {
    let read = 0;
    let total = 0;
    for (const t of this.turns.values()) {
      if (!t.usage) continue;
      const r = t.usage.cache_read_input_tokens ?? 0;
      read += r;
      total += t.usage.input_tokens + r + (t.usage.cache_creation_input_tokens ?? 0);
    }
    return total === 0 ? 0 : read / total;
  }
}
