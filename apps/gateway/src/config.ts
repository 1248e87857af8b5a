import type { ServiceName } from '@headspace/contracts';
import { baseConfigSchema, portSchema } from '@headspace/platform';
import { z } from 'zod';
import { webhooksConfigShape } from './webhooks/webhooks.config';

export const SERVICE: ServiceName = 'gateway';

function positiveInt(defaultValue: number) {
  const message = 'must be a positive integer';
  return z.coerce.number({ error: message }).int({ error: message }).positive({ error: message }).default(defaultValue);
}

/** `*`, or comma-separated origins (`https://a.example,https://b.example`); empty = CORS off. */
const corsOrigins = z
  .string()
  .default('')
  .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
  .refine((list) => list.every((o) => o === '*' || /^https?:\/\/[^\s/]+$/.test(o)), {
    error: 'must be * or comma-separated http(s)://host[:port] origins',
  });

export const configSchema = baseConfigSchema.extend({
  HTTP_PORT: portSchema(3000),
  /** An admin token to store (hashed) on start; without it the first start generates one into HS_ADMIN_TOKEN_FILE. */
  HS_ADMIN_TOKEN: z.string().min(32, { error: 'must be at least 32 characters' }).max(512).optional(),
  /** Where a generated first admin token is written (mode 0600; its directory 0700), never to stdout or logs. */
  HS_ADMIN_TOKEN_FILE: z.string().default('.headspace/admin-token'),
  HS_CORS_ORIGINS: corsOrigins,
  /** Largest accepted request body (default 1 MiB). */
  HS_BODY_LIMIT_BYTES: positiveInt(1_048_576),
  /** Requests per token (or per address for a request without a valid token) in each window. */
  HS_RATE_LIMIT_MAX: positiveInt(1_200),
  /** Requests per client address in each window, counted before the token lookup (bad-token floods never reach PostgreSQL). */
  HS_RATE_LIMIT_ADDRESS_MAX: positiveInt(6_000),
  /** Requests per token in each window to routes that spend money: start or answer a run, answer an approval, resolve a budget pause. */
  HS_RATE_LIMIT_SPEND_MAX: positiveInt(30),
  HS_RATE_LIMIT_WINDOW_MS: positiveInt(60_000),
  /** Largest exception ingest body (plain, Sentry envelope/store), as sent and once decompressed (a zip bomb stops there: 413). */
  HS_OPS_INGEST_MAX_BYTES: positiveInt(5_242_880),
  /** How long a NATS command or query may take before the gateway answers 503. */
  HS_REQUEST_TIMEOUT_MS: positiveInt(5_000),
  /** The dashboard links runs, sessions and exceptions to their trace here: an http(s) URL with `{traceId}` in it (Grafana/Tempo explore). */
  HS_TRACE_URL_TEMPLATE: z.url({ protocol: /^https?$/ }).refine((v) => v.includes('{traceId}'), { error: 'must contain {traceId}' }).optional(),
  ...webhooksConfigShape,
});

export type AppConfig = z.output<typeof configSchema>;
