import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';

export const modelTiers = ['haiku', 'sonnet', 'opus'] as const;
export const modelTierSchema = z.enum(modelTiers);
export type ModelTier = z.output<typeof modelTierSchema>;

export const modelThinkingModes = ['extended', 'adaptive', 'adaptive-always-on'] as const;
export const modelThinkingSchema = z.enum(modelThinkingModes);
export type ModelThinking = z.output<typeof modelThinkingSchema>;

/** USD per million tokens: a non-negative number with at most 6 decimals. */
const perMTok = z.number().nonnegative().refine((n) => Math.abs(n * 1e6 - Math.round(n * 1e6)) < 1e-6, 'at most 6 decimals');

export const modelPriceSchema = z.object({
  /** The API model id, e.g. claude-sonnet-4-6. */
  id: z.string().min(1).max(100),
  tier: modelTierSchema,
  /** Other names it answers to (`haiku`, `claude-haiku-4-5`): each name maps to one model. */
  aliases: z.array(z.string().min(1).max(100)).default([]),
  /** The first day (UTC) this row applies; a later row for the same id replaces it from its own date. */
  effectiveFrom: z.iso.date(),
  inputPerMTok: perMTok,
  outputPerMTok: perMTok,
  /** Above `thresholdInputTokens` (input + cache writes + cache reads) every token of the request is billed at these rates. */
  longContext: z
    .object({ thresholdInputTokens: z.number().int().positive(), inputPerMTok: perMTok, outputPerMTok: perMTok })
    .optional(),
  /** Cache reads as a multiple of this model's input rate, where it differs from the table's (Fable 5.1: 0.025). */
  cacheReadMultiplier: z.number().positive().max(10).optional(),
  /** Tokens the model reads per request; sessions hand off within it (and under the long-context step). */
  contextWindow: z.number().int().positive().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  /**
   * How the model thinks: `extended` takes a token budget (`thinking.type: enabled`); `adaptive` decides
   * itself and takes an effort level (a budget is deprecated or refused); `adaptive-always-on` cannot
   * have thinking disabled.
   */
  thinking: modelThinkingSchema.optional(),
  /** The day (UTC) Anthropic retires the model: requests fail from then on. Warned about before. */
  retiresOn: z.iso.date().optional(),
});
export type ModelPrice = z.output<typeof modelPriceSchema>;

const multiplier = z.number().positive().max(10);

export const priceTableSchema = z
  .object({
    /** Increases with every published table. */
    version: z.number().int().positive(),
    currency: z.literal('USD').default('USD'),
    multipliers: z
      .object({
        cacheWrite5m: multiplier.default(1.25),
        cacheWrite1h: multiplier.default(2),
        cacheRead: multiplier.default(0.1),
        batch: multiplier.default(0.5),
      })
      .prefault({}),
    models: z.array(modelPriceSchema).min(1),
  })
  .superRefine((table, ctx) => {
    const owner = new Map<string, string>();
    table.models.forEach((model, index) => {
      for (const name of [model.id, ...model.aliases]) {
        const previous = owner.get(name);
        if (previous !== undefined && previous !== model.id) {
          ctx.addIssue({ code: 'custom', path: ['models', index, 'aliases'], message: `"${name}" already names ${previous}` });
        }
        owner.set(name, model.id);
      }
    });
  });
export type PriceTable = z.output<typeof priceTableSchema>;

export const priceTablePublished = defineEvent({
  service: 'cost-governor',
  category: 'price-table',
  name: 'published',
  schema: z.object({
    version: z.number().int().positive(),
    table: priceTableSchema,
    source: z.enum(['file', 'command']),
    publishedBy: z.string().max(200),
    publishedAt: z.iso.datetime(),
  }),
});

export const priceEvents = [priceTablePublished];

/** `prices.update`: publishes a new price table without a release; its version must be above the current one. */
export const updatePrices = defineCommand({
  service: 'cost-governor',
  name: 'prices.update',
  request: z.object({ table: priceTableSchema, publishedBy: z.string().min(1).max(200) }),
  response: z.object({ version: z.number().int(), streamVersion: z.string() }),
});

/** A priced model at or within the warning window of its retirement date. */
export const modelRetirementWarningSchema = z.object({
  model: z.string(),
  retiresOn: z.iso.date(),
  /** Negative once retired. */
  daysLeft: z.number().int(),
  message: z.string(),
});
export type ModelRetirementWarning = z.output<typeof modelRetirementWarningSchema>;

export const getPrices = defineQuery({
  service: 'cost-governor',
  name: 'prices.get',
  request: z.object({}).default({}),
  response: z.object({ table: priceTableSchema, warnings: z.array(modelRetirementWarningSchema).default([]) }),
});
