import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { microsSchema, usdAmountSchema } from './money.contracts';
import { surfaceSchema } from './usage.contracts';

/** The SDK's SDKRateLimitInfo, as agents report it (seed 003 Req 4.10, 15.6). */
export const rateLimitInfoSchema = z.object({
  status: z.enum(['allowed', 'allowed_warning', 'rejected']),
  rateLimitType: z.string().min(1).max(100).optional(),
  /** 0..1 */
  utilization: z.number().min(0).max(10),
  resetsAt: z.iso.datetime().optional(),
  overageStatus: z.enum(['allowed', 'allowed_warning', 'rejected']).optional(),
  overageResetsAt: z.iso.datetime().optional(),
  isUsingOverage: z.boolean().default(false),
});

export const quotaStreamId = (project: string) => `quota-${project}`;

export const rateLimitStatusRecorded = defineEvent({
  service: 'cost-governor',
  category: 'quota',
  name: 'rate-limit-status',
  schema: z.object({ project: z.string(), persona: z.string(), surface: surfaceSchema, info: rateLimitInfoSchema, at: z.iso.datetime() }),
});

export const quotaSet = defineEvent({
  service: 'cost-governor',
  category: 'quota',
  name: 'set',
  schema: z.object({ project: z.string(), weeklyLimitMicros: microsSchema, setBy: z.string(), at: z.iso.datetime() }),
});

/** Consumption passed 80% of the weekly quota (once per week), or a rate limit reported ≥ 80% utilisation. */
export const quotaAlert = defineEvent({
  service: 'cost-governor',
  category: 'quota',
  name: 'alert',
  schema: z.object({
    project: z.string(),
    source: z.enum(['weekly-quota', 'rate-limit']),
    utilisation: z.number(),
    weekStart: z.iso.datetime(),
    predictedExhaustionAt: z.iso.datetime().optional(),
    at: z.iso.datetime(),
  }),
});

export const quotaEvents = [rateLimitStatusRecorded, quotaSet, quotaAlert];

export const recordRateLimit = defineCommand({
  service: 'cost-governor',
  name: 'record-rate-limit',
  request: z.object({ project: z.string().min(1).max(200), persona: z.string().min(1).max(200), surface: surfaceSchema, info: rateLimitInfoSchema }),
  response: z.object({ alerted: z.boolean(), streamVersion: z.string() }),
});

export const setQuota = defineCommand({
  service: 'cost-governor',
  name: 'set-quota',
  request: z.object({ project: z.string().min(1).max(200), weeklyLimitUsd: usdAmountSchema, setBy: z.string().min(1).max(200) }),
  response: z.object({ streamVersion: z.string() }),
});

export const getQuota = defineQuery({
  service: 'cost-governor',
  name: 'get-quota',
  request: z.object({ project: z.string().min(1).max(200) }),
  response: z.object({
    project: z.string(),
    weekStart: z.string(),
    weeklyLimitMicros: microsSchema.optional(),
    consumedMicros: microsSchema,
    utilisation: z.number().optional(),
    /** Spend per hour over the elapsed part of the week, and when the quota runs out at that rate. */
    runRateMicrosPerHour: microsSchema,
    predictedExhaustionAt: z.string().optional(),
    bySurface: z.array(z.object({ surface: z.string(), costMicros: microsSchema })),
    byAgent: z.array(z.object({ persona: z.string(), costMicros: microsSchema })),
    lastRateLimit: rateLimitInfoSchema.optional(),
  }),
});
