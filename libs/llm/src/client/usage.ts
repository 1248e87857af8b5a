import type Anthropic from '@anthropic-ai/sdk';

/** Usage of one model call, normalised for the cost governor and telemetry. */
export interface LlmUsage {
  /** Uncached input tokens (after the last cache breakpoint or with no cache hit). */
  inputTokens: number;
  outputTokens: number;
  /** Tokens written to the cache with a 5-minute ttl (billed 1.25x input). */
  cacheCreation5mTokens: number;
  /** Tokens written to the cache with a 1-hour ttl (billed 2x input). */
  cacheCreation1hTokens: number;
  /** Total cache writes (5m + 1h). */
  cacheCreationTokens: number;
  /** Tokens read from the cache (billed 0.1x input). */
  cacheReadTokens: number;
  /** Everything the model read: input + cache writes + cache reads. */
  totalInputTokens: number;
  serviceTier: 'standard' | 'priority' | 'batch' | null;
}

type RawUsage = Partial<Omit<Anthropic.Usage, 'cache_creation'>> & {
  cache_creation?: Partial<Anthropic.CacheCreation> | null;
};

const n = (v: number | null | undefined): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * Normalises an API `usage` object. The 5m/1h split comes from `usage.cache_creation`; when
 * that breakdown is missing (older servers), `cache_creation_input_tokens` is counted as 5m, the
 * API's default ttl.
 */
export function normaliseUsage(usage: RawUsage | null | undefined): LlmUsage {
  const u = usage ?? {};
  const breakdown = u.cache_creation;
  let c5m: number;
  let c1h: number;
  if (breakdown && (breakdown.ephemeral_5m_input_tokens != null || breakdown.ephemeral_1h_input_tokens != null)) {
    c5m = n(breakdown.ephemeral_5m_input_tokens);
    c1h = n(breakdown.ephemeral_1h_input_tokens);
  } else {
    c5m = n(u.cache_creation_input_tokens);
    c1h = 0;
  }
  const inputTokens = n(u.input_tokens);
  const cacheReadTokens = n(u.cache_read_input_tokens);
  return {
    inputTokens,
    outputTokens: n(u.output_tokens),
    cacheCreation5mTokens: c5m,
    cacheCreation1hTokens: c1h,
    cacheCreationTokens: c5m + c1h,
    cacheReadTokens,
    totalInputTokens: inputTokens + c5m + c1h + cacheReadTokens,
    serviceTier: u.service_tier ?? null,
  };
}

/** Adds two usages (for a session's running total). */
export function addUsage(a: LlmUsage, b: LlmUsage): LlmUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheCreation5mTokens: a.cacheCreation5mTokens + b.cacheCreation5mTokens,
    cacheCreation1hTokens: a.cacheCreation1hTokens + b.cacheCreation1hTokens,
    cacheCreationTokens: a.cacheCreationTokens + b.cacheCreationTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    totalInputTokens: a.totalInputTokens + b.totalInputTokens,
    serviceTier: b.serviceTier ?? a.serviceTier,
  };
}
