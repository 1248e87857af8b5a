import type { ServiceName } from '@headspace/contracts';
import { baseConfigSchema, portSchema } from '@headspace/platform';
import type { z } from 'zod';

export const SERVICE: ServiceName = 'ops-leon';

export const configSchema = baseConfigSchema.extend({
  HTTP_PORT: portSchema(3004),
});

export type AppConfig = z.output<typeof configSchema>;
