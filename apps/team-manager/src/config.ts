import type { ServiceName } from '@headspace/contracts';
import { baseConfigSchema, portSchema } from '@headspace/platform';
import { z } from 'zod';

export const SERVICE: ServiceName = 'team-manager';

export const configSchema = baseConfigSchema.extend({
  HTTP_PORT: portSchema(3001),
  /** A file lock untouched this long may be broken by another teammate (seed 003 Req 6.4: 5 minutes). */
  FILE_LOCK_STALE_MS: z.coerce.number({ error: 'must be a number of milliseconds' }).int().positive().default(300_000),
});

export type AppConfig = z.output<typeof configSchema>;
