import { ErrorCodes, HeadspaceError } from '@headspace/contracts';

/**
 * When a session hands off (architecture §5: default 80% of the window) and where the seed's
 * compaction thresholds would be (seed 003 Requirement 2.4–2.5: 83.5% of a 200K window, 85% of a
 * 1M window). Our sessions hand off instead of compacting, so the handoff comes first; the env
 * override (Requirement 2.12, `BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE` → `HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE`,
 * 1–100) moves the handoff threshold and wins over configuration.
 */
export const DEFAULT_HANDOFF_PERCENT = 80;
export const HANDOFF_PCT_ENV = 'HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE';
/** The seed's own name, honoured when ours is not set. */
export const SEED_HANDOFF_PCT_ENV = 'BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE';
export const LARGE_WINDOW_TOKENS = 1_000_000;

export interface ContextThresholds {
  windowTokens: number;
  handoffPercent: number;
  handoffAtTokens: number;
  compactPercent: number;
  compactAtTokens: number;
  source: 'default' | 'config' | 'env';
}

export function compactPercentFor(windowTokens: number): number {
  return windowTokens >= LARGE_WINDOW_TOKENS ? 85 : 83.5;
}

function parsePercent(raw: string, field: string): number {
  const value = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(value) || value < 1 || value > 100) {
    throw new HeadspaceError(ErrorCodes.contextThresholdInvalid, `${field} must be a number from 1 to 100, got "${raw}"`, { field });
  }
  return value;
}

export function resolveContextThresholds(opts: {
  windowTokens: number;
  handoffPercent?: number;
  env?: Record<string, string | undefined>;
}): ContextThresholds {
  if (!Number.isInteger(opts.windowTokens) || opts.windowTokens <= 0) {
    throw new HeadspaceError(ErrorCodes.contextThresholdInvalid, `windowTokens must be a positive integer`, { field: 'windowTokens' });
  }
  const env = opts.env ?? process.env;
  let handoffPercent = DEFAULT_HANDOFF_PERCENT;
  let source: ContextThresholds['source'] = 'default';
  if (opts.handoffPercent !== undefined) {
    handoffPercent = parsePercent(String(opts.handoffPercent), 'handoffPercent');
    source = 'config';
  }
  const override = env[HANDOFF_PCT_ENV] ?? env[SEED_HANDOFF_PCT_ENV];
  if (override !== undefined) {
    handoffPercent = parsePercent(override, env[HANDOFF_PCT_ENV] !== undefined ? HANDOFF_PCT_ENV : SEED_HANDOFF_PCT_ENV);
    source = 'env';
  }
  const compactPercent = compactPercentFor(opts.windowTokens);
  return {
    windowTokens: opts.windowTokens,
    handoffPercent,
    handoffAtTokens: Math.floor((opts.windowTokens * handoffPercent) / 100),
    compactPercent,
    compactAtTokens: Math.floor((opts.windowTokens * compactPercent) / 100),
    source,
  };
}
