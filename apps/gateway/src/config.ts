import type { ServiceName } from '@headspace/contracts';
import { baseConfigSchema, portSchema } from '@headspace/platform';
import type { z } from 'zod';

export const SERVICE: ServiceName = 'gateway';

export const configSchema = baseConfigSchema.extend({
  HTTP_PORT: portSchema(3000),
});

export type AppConfig = z.output<typeof configSchema>;
