import type { ServiceName } from '@headspace/contracts';
import { baseConfigSchema, portSchema } from '@headspace/platform';
import { z } from 'zod';
import { taskSettingsSchema } from './tasks/task-streams';
import { teamsConfigSchema } from './teams/teams.config';

export const SERVICE: ServiceName = 'team-manager';

export const configSchema = baseConfigSchema.extend({
  HTTP_PORT: portSchema(3001),
  /** A file lock untouched this long may be broken by another teammate (seed 003 Req 6.4: 5 minutes). */
  FILE_LOCK_STALE_MS: z.coerce.number({ error: 'must be a number of milliseconds' }).int().positive().default(300_000),
  ...teamsConfigSchema.shape,
  ...taskSettingsSchema.shape,
  /** Personas and pools loaded at start (default: the shipped config/personas.yaml). */
  HS_PERSONAS_FILE: z.string().min(1).optional(),
  /** How often approvals past their timeout get their default answer. */
  HS_APPROVAL_SWEEP_MS: z.coerce.number({ error: 'must be a number of milliseconds' }).int().min(10).max(3_600_000).optional(),
});

export type AppConfig = z.output<typeof configSchema>;
