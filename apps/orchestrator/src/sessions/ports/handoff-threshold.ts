import type { AppConfig } from '../../config';

type ThresholdConfig = Pick<AppConfig, 'SESSION_HANDOFF_THRESHOLD' | 'HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE' | 'BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE'>;

/** The share of the working window a session hands off at: the seed's percentage override wins over configuration (Req 2.12). */
export function handoffThresholdOf(config: ThresholdConfig): number {
  const override = config.HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE ?? config.BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE;
  return override === undefined ? config.SESSION_HANDOFF_THRESHOLD : override / 100;
}
