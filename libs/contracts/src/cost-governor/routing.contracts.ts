import { z } from 'zod';
import { defineQuery } from '../messages';
import { modelTierSchema } from './price.contracts';

/** Seed 003 Req 4.5: what the router knows about a task. */
export const taskSignalsSchema = z.object({
  isExploration: z.boolean().default(false),
  filesAffected: z.number().int().nonnegative().default(1),
  requiresReasoning: z.boolean().default(false),
  isTeamLead: z.boolean().default(false),
  dependencyDepth: z.number().int().nonnegative().default(0),
  ambiguity: z.enum(['low', 'medium', 'high']).default('low'),
});
export type TaskSignals = z.output<typeof taskSignalsSchema>;

export const effortLevels = ['quick', 'standard', 'deep'] as const;
export const effortLevelSchema = z.enum(effortLevels);
export type EffortLevel = z.output<typeof effortLevelSchema>;

/** Seed 003 Req 12.1: the extended-thinking `budget_tokens` of each effort level. */
export const THINKING_BUDGET_TOKENS: Record<EffortLevel, number> = { quick: 2_000, standard: 10_000, deep: 50_000 };

export const budgetPressureSchema = z.enum(['normal', 'warning', 'critical']);
export type BudgetPressure = z.output<typeof budgetPressureSchema>;

export const routingDecisionSchema = z.object({
  model: z.string(),
  tier: modelTierSchema,
  batch: z.boolean(),
  effort: effortLevelSchema,
  thinkingBudgetTokens: z.number().int(),
  /** Seed 003 Req 12.4: `fast` when Fast Mode is configured and the call runs on a model that has it. */
  speed: z.enum(['standard', 'fast']).default('standard'),
  reasons: z.array(z.string()),
});
export type RoutingDecision = z.output<typeof routingDecisionSchema>;

/** The routing decision alone (no budget check, no reservation). */
export const routeModel = defineQuery({
  service: 'cost-governor',
  name: 'route-model',
  request: z.object({
    signals: taskSignalsSchema.prefault({}),
    model: z.string().min(1).max(100).optional(),
    effort: effortLevelSchema.optional(),
    interactive: z.boolean().default(true),
    pressure: budgetPressureSchema.default('normal'),
  }),
  response: routingDecisionSchema,
});
