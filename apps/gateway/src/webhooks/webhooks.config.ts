import { z } from 'zod';
import { SecretBox } from '@headspace/platform';
import ipaddr from 'ipaddr.js';
import { parseAllowedHosts } from './webhook-url-guard';

const positiveInt = (defaultValue: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number({ error: 'must be a positive integer' }).int({ error: 'must be a positive integer' }).positive({ error: 'must be a positive integer' }).max(max).default(defaultValue);

/** The gateway's webhook variables, spread into its config schema (README: Configuration). */
export const webhooksConfigShape = {
  /** 32 bytes (64 hex or base64) sealing subscription secrets at rest; without it no subscription can be created. */
  HS_WEBHOOK_SECRET_KEY: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === '' || isKey(v), 'must be 32 bytes, as 64 hex characters or base64'),
  /** How long one delivery attempt may take. */
  HS_WEBHOOK_TIMEOUT_MS: positiveInt(10_000, 120_000),
  /** The first retry's delay; each further one doubles it, up to HS_WEBHOOK_BACKOFF_MAX_MS. */
  HS_WEBHOOK_BACKOFF_MS: positiveInt(1_000),
  HS_WEBHOOK_BACKOFF_MAX_MS: positiveInt(3_600_000),
  /** How long a delivery is retried after its first attempt before it is given up. */
  HS_WEBHOOK_RETRY_FOR_MS: positiveInt(86_400_000),
  /** A subscription whose deliveries have failed (no success in between) for this long is disabled. */
  HS_WEBHOOK_DISABLE_AFTER_MS: positiveInt(259_200_000),
  /** The delivery sweeper's pause when nothing is due. */
  HS_WEBHOOK_POLL_MS: positiveInt(100, 60_000),
  /** Subscription/stream queues sent side by side. */
  HS_WEBHOOK_PARALLEL: positiveInt(16, 256),
  /** Most events one backfill request schedules. */
  HS_WEBHOOK_BACKFILL_MAX: positiveInt(10_000, 1_000_000),
  /** Let subscriptions target loopback, link-local, private and other non-public addresses (SSRF guard off). */
  HS_WEBHOOK_ALLOW_PRIVATE: z.stringbool({ error: 'must be true or false' }).default(false),
  /** Host names, addresses and CIDR ranges subscriptions may target even when not public (comma-separated). */
  HS_WEBHOOK_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform(parseAllowedHosts)
    .refine((hosts) => hosts.every((h) => ipaddr.isValid(h) || ipaddr.isValidCIDR(h) || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(h)), {
      error: 'must be host names, IP addresses or CIDR ranges, separated by commas',
    }),
};

export type WebhooksConfig = z.output<z.ZodObject<typeof webhooksConfigShape>>;

function isKey(value: string): boolean {
  try {
    SecretBox.fromKey(value);
    return true;
  } catch {
    return false;
  }
}
