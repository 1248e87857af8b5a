import { z } from 'zod';
import { defineCommand, defineEvent } from '../messages';
import { microsSchema } from './money.contracts';
import { modelTierSchema } from './price.contracts';

export const surfaces = ['cli', 'web', 'desktop', 'mobile', 'api'] as const;
export const surfaceSchema = z.enum(surfaces);

const key = z.string().min(1).max(200);

/** Who spent: every usage record and every may-spend names all of these (the task is optional). */
export const attributionSchema = z.object({
  taskId: key.optional(),
  sessionId: key,
  persona: key,
  team: key,
  project: key,
  surface: surfaceSchema,
});
export type Attribution = z.output<typeof attributionSchema>;

const tokens = z.number().int().nonnegative().max(100_000_000);

/**
 * Token counts as the Messages API reports them: `inputTokens` excludes cached tokens; cache writes
 * are split by TTL. `thinkingTokens` are already inside `outputTokens` (they are billed as output)
 * and are recorded for reporting only.
 */
export const usageTokensSchema = z.object({
  inputTokens: tokens,
  outputTokens: tokens,
  cacheWrite5mTokens: tokens.default(0),
  cacheWrite1hTokens: tokens.default(0),
  cacheReadTokens: tokens.default(0),
  thinkingTokens: tokens.default(0),
});
export type UsageTokens = z.output<typeof usageTokensSchema>;

export const serviceTierSchema = z.enum(['standard', 'batch']);

export const usageRecorded = defineEvent({
  service: 'cost-governor',
  category: 'usage',
  name: 'recorded',
  schema: z.object({
    usageId: z.string(),
    attribution: attributionSchema,
    model: z.string(),
    tier: modelTierSchema,
    serviceTier: serviceTierSchema,
    tokens: usageTokensSchema,
    costMicros: microsSchema,
    longContext: z.boolean(),
    priceVersion: z.number().int(),
    reservationId: z.string().optional(),
    occurredAt: z.iso.datetime(),
  }),
});

export const usageEvents = [usageRecorded];

export const recordUsage = defineCommand({
  service: 'cost-governor',
  name: 'record-usage',
  request: z.object({
    attribution: attributionSchema,
    /** The model that actually ran (id or alias). */
    model: z.string().min(1).max(100),
    serviceTier: serviceTierSchema.default('standard'),
    tokens: usageTokensSchema,
    /** The may-spend reservation this call settles (its hold is released, the real cost charged). */
    reservationId: z.string().min(1).max(100).optional(),
    occurredAt: z.iso.datetime().optional(),
  }),
  response: z.object({
    usageId: z.string(),
    model: z.string(),
    costMicros: microsSchema,
    costUsd: z.string(),
    priceVersion: z.number().int(),
    budgets: z.array(z.object({ budgetId: z.string(), spentMicros: microsSchema, limitMicros: microsSchema.optional() })),
  }),
});
