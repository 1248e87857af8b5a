import type { ServiceName } from '@headspace/contracts';
import { baseConfigSchema, portSchema } from '@headspace/platform';
import { z } from 'zod';

export const SERVICE: ServiceName = 'cost-governor';

const ms = (min: number, max: number) => z.coerce.number({ error: 'must be a number of milliseconds' }).int().min(min).max(max);

export const configSchema = baseConfigSchema.extend({
  HTTP_PORT: portSchema(3003),
  /** Price table published at start when newer than the log's (default: the shipped config/prices.yaml). */
  HS_PRICES_FILE: z.string().min(1).optional(),
  /** A may-spend reservation not settled by record-usage within this time is released. */
  HS_RESERVATION_TIMEOUT_MS: ms(100, 86_400_000).default(300_000),
  /** How often expired reservations are looked for. */
  HS_RESERVATION_SWEEP_MS: ms(10, 3_600_000).default(1_000),
  /** Proposed top-up when a budget pauses at 95%, in percent of its limit (approve without an amount adds this). */
  HS_BUDGET_TOPUP_PERCENT: z.coerce.number({ error: 'must be a whole percentage' }).int().min(1).max(1_000).default(50),
  /** How long the budget-overrun approval waits in the team-manager queue before its default answer (deny). */
  HS_BUDGET_APPROVAL_TIMEOUT_MS: ms(100, 30 * 86_400_000).default(3_600_000),
  /** Cache hit rate under which `cache.hit-rate-low` fires (seed 003 Req 11.3: 70%). */
  HS_CACHE_HIT_RATE_ALERT: z.coerce.number({ error: 'must be a number between 0 and 1' }).min(0).max(1).default(0.7),
  /** Prompt tokens an agent must have sent before its hit rate is judged. */
  HS_CACHE_MIN_TOKENS: z.coerce.number({ error: 'must be a whole number of tokens' }).int().nonnegative().default(50_000),
  /** Seed 003 Req 12.4: comma-separated model ids that run in Fast Mode (routing answers `speed: fast`, spans carry it). */
  HS_FAST_MODE_MODELS: z
    .string()
    .default('')
    .transform((v) => new Set(v.split(',').map((s) => s.trim()).filter(Boolean))),
  /** Days before a priced model's `retiresOn` that routing answers, the prices query and the log warn about it. */
  HS_MODEL_RETIREMENT_WARN_DAYS: z.coerce.number({ error: 'must be a whole number of days' }).int().min(0).max(3_650).default(60),
  /** Quota alert level (seed 003 Req 15.3: 80%). */
  HS_QUOTA_ALERT_PERCENT: z.coerce.number({ error: 'must be a whole percentage' }).int().min(1).max(100).default(80),
});

export type AppConfig = z.output<typeof configSchema>;
