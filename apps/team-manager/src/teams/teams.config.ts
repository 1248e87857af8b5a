import { APP_CONFIG } from '@headspace/platform';
import { z } from 'zod';

export const TEAMS_CONFIG = Symbol.for('headspace.team-manager.TEAMS_CONFIG');

const positiveInt = (fallback: number, max: number) => z.coerce.number().int().min(1).max(max).default(fallback);

/**
 * Settings of the team lifecycle and teammate features, validated with the service config
 * (../config.ts spreads this schema).
 */
export const teamsConfigSchema = z.object({
  /** Default limit of teammate spawn depth (lead = 0, its teammates = 1, their sub-agents = 2 …); a team may set its own. */
  TEAMMATE_MAX_DEPTH: positiveInt(3, 10),
  /** How often the shutdown-timeout sweeper looks for overdue shutdowns. */
  TEAM_SHUTDOWN_SWEEP_MS: positiveInt(1_000, 3_600_000),
});
export type TeamsConfig = z.output<typeof teamsConfigSchema>;

export const teamsConfigProvider = {
  provide: TEAMS_CONFIG,
  inject: [APP_CONFIG],
  useFactory: (config: Record<string, unknown>): TeamsConfig =>
    teamsConfigSchema.parse({
      TEAMMATE_MAX_DEPTH: config.TEAMMATE_MAX_DEPTH,
      TEAM_SHUTDOWN_SWEEP_MS: config.TEAM_SHUTDOWN_SWEEP_MS,
    }),
};
