import type { ServiceName } from '@headspace/contracts';
import { baseConfigSchema, portSchema } from '@headspace/platform';
import type { z } from 'zod';

export const SERVICE: ServiceName = 'orchestrator';

export const configSchema = baseConfigSchema.extend({
  HTTP_PORT: portSchema(3002),
});

export type AppConfig = z.output<typeof configSchema>;
