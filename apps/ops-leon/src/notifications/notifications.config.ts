import { z } from 'zod';
import { SecretBox } from '@headspace/platform';

const positiveInt = (defaultValue: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number({ error: 'must be a positive integer' }).int({ error: 'must be a positive integer' }).positive({ error: 'must be a positive integer' }).max(max).default(defaultValue);

/** Leon's notification variables, spread into ops-leon's config schema (README: Configuration). */
export const notificationsConfigShape = {
  /** 32 bytes (64 hex or base64) sealing webhook secrets in the log; without it no webhook secret can be set. */
  HS_OPS_SECRET_KEY: z
    .string()
    .optional()
    .refine((v) => v === undefined || tryKey(v), 'must be 32 bytes, as 64 hex characters or base64'),
  /** `smtp://user:pass@host:port` or `smtps://…`; without it email deliveries are abandoned with that reason. */
  HS_SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  HS_SMTP_FROM: z.string().min(3).default('Headspace Leon <leon@headspace.local>'),
  HS_OPS_NOTIFY_TIMEOUT_MS: positiveInt(5_000, 60_000),
  HS_OPS_NOTIFY_MAX_ATTEMPTS: positiveInt(6, 20),
  /** The first retry's delay; each further one doubles it, up to 15 minutes. */
  HS_OPS_NOTIFY_BACKOFF_MS: positiveInt(1_000, 900_000),
  HS_OPS_NOTIFY_POLL_MS: positiveInt(500, 60_000),
};

export type NotificationsConfig = z.output<z.ZodObject<typeof notificationsConfigShape>>;

function tryKey(value: string): boolean {
  try {
    SecretBox.fromKey(value);
    return true;
  } catch {
    return false;
  }
}
