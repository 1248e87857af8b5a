import { z } from 'zod';
import { defineEvent, defineQuery } from '../messages';
import { microsSchema } from './money.contracts';
import { modelTierSchema } from './price.contracts';

export const spendGroupBySchema = z.enum(['task', 'session', 'persona', 'team', 'project', 'surface', 'model', 'tier', 'day']);

const filters = z.object({
  team: z.string().max(200).optional(),
  project: z.string().max(200).optional(),
  sessionId: z.string().max(200).optional(),
  persona: z.string().max(200).optional(),
  from: z.iso.datetime().optional(),
  to: z.iso.datetime().optional(),
});

const totals = {
  calls: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  cacheWriteTokens: z.number().int(),
  cacheReadTokens: z.number().int(),
  costMicros: microsSchema,
  costUsd: z.string(),
};

/** Spend by any attribution key over a period (from the usage projection). */
export const getSpend = defineQuery({
  service: 'cost-governor',
  name: 'get-spend',
  request: filters.extend({ groupBy: spendGroupBySchema }),
  response: z.object({ groups: z.array(z.object({ key: z.string(), ...totals })), total: z.object(totals) }),
});

/** Seed 003 Req 4.8: a task's input/output tokens and USD. */
export const getTaskCost = defineQuery({
  service: 'cost-governor',
  name: 'get-task-cost',
  request: z.object({ taskId: z.string().min(1).max(200) }),
  response: z.object({ taskId: z.string(), ...totals }),
});

export const getTierDistribution = defineQuery({
  service: 'cost-governor',
  name: 'get-tier-distribution',
  request: filters,
  response: z.object({
    tiers: z.array(z.object({ tier: modelTierSchema, calls: z.number().int(), costMicros: microsSchema, share: z.number() })),
  }),
});

/** Rows shaped like `ccusage` output (daily by model), for terminal monitors. */
export const exportUsage = defineQuery({
  service: 'cost-governor',
  name: 'export-usage',
  request: filters,
  response: z.object({
    rows: z.array(
      z.object({
        date: z.string(),
        modelsUsed: z.array(z.string()),
        inputTokens: z.number().int(),
        outputTokens: z.number().int(),
        cacheCreationTokens: z.number().int(),
        cacheReadTokens: z.number().int(),
        totalTokens: z.number().int(),
        totalCost: z.number(),
      }),
    ),
  }),
});

/** Seed 003 Req 11.3-4: hit rate per agent and team, what caching saved, break-even reads. */
export const getCacheEconomics = defineQuery({
  service: 'cost-governor',
  name: 'get-cache-economics',
  request: z.object({ team: z.string().min(1).max(200) }),
  response: z.object({
    team: z.object({ hitRate: z.number(), savedMicros: microsSchema }),
    agents: z.array(z.object({ persona: z.string(), hitRate: z.number(), cacheReadTokens: z.number().int(), cacheWriteTokens: z.number().int(), inputTokens: z.number().int(), savedMicros: microsSchema, alerting: z.boolean() })),
    breakEvenReads: z.object({ cacheWrite5m: z.number().int(), cacheWrite1h: z.number().int() }),
  }),
});

export const cacheHitRateLow = defineEvent({
  service: 'cost-governor',
  category: 'cache',
  name: 'hit-rate-low',
  schema: z.object({ team: z.string(), persona: z.string(), hitRate: z.number(), threshold: z.number(), at: z.iso.datetime() }),
});

export const reportingEvents = [cacheHitRateLow];
