import { compactPercentOf } from '@headspace/agent-runtime';
import type { AppConfig } from '../../config';

type ThresholdConfig = Pick<AppConfig, 'SESSION_HANDOFF_THRESHOLD'>;
type CompactConfig = Pick<AppConfig, 'HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE' | 'CLAUDE_AUTOCOMPACT_PCT_OVERRIDE' | 'BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE'>;

/** The share of the working window a session hands off at (architecture §5: 80% by default). */
export function handoffThresholdOf(config: ThresholdConfig): number {
  return config.SESSION_HANDOFF_THRESHOLD;
}

/**
 * The share of the working window a session compacts at (seed 003 Req 2.4, 2.5, 2.12): the
 * operator's `…_AUTOCOMPACT_PCT_OVERRIDE` (ours, Claude Code's, then the seed's name), else 83.5%
 * (85% on a 1M working window).
 */
export function compactThresholdOf(config: CompactConfig, workingWindowTokens: number): number {
  return compactPercentOf(workingWindowTokens, config).percent / 100;
}
