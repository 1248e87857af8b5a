import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { microsSchema, usdAmountSchema } from './money.contracts';
import { effortLevelSchema, routingDecisionSchema, taskSignalsSchema } from './routing.contracts';
import { attributionSchema } from './usage.contracts';

const key = z.string().min(1).max(200);

/** What a budget caps: one agent session, one agent (persona in a team), a whole team, a project. */
export const budgetScopeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('session'), sessionId: key }),
  z.object({ kind: z.literal('agent'), team: key, persona: key }),
  z.object({ kind: z.literal('team'), team: key }),
  z.object({ kind: z.literal('project'), project: key }),
]);
export type BudgetScope = z.output<typeof budgetScopeSchema>;

/** Spend resets at the start of each UTC day / ISO week (Monday) / month; `none` never resets. */
export const budgetPeriodSchema = z.enum(['none', 'day', 'week', 'month']);
export type BudgetPeriod = z.output<typeof budgetPeriodSchema>;

export function budgetIdOf(scope: BudgetScope): string {
  switch (scope.kind) {
    case 'session':
      return `session.${scope.sessionId}`;
    case 'agent':
      return `agent.${scope.team}.${scope.persona}`;
    case 'team':
      return `team.${scope.team}`;
    case 'project':
      return `project.${scope.project}`;
  }
}

export const budgetStreamId = (budgetId: string) => `budget-${budgetId}`;

const at = z.iso.datetime();

export const budgetSet = defineEvent({
  service: 'cost-governor',
  category: 'budget',
  name: 'set',
  schema: z.object({
    budgetId: z.string(),
    scope: budgetScopeSchema,
    limitMicros: microsSchema.optional(),
    turnInputTokens: z.number().int().positive().optional(),
    turnOutputTokens: z.number().int().positive().optional(),
    period: budgetPeriodSchema,
    periodStart: at,
    setBy: z.string(),
    at,
  }),
});

/** A new period began: spend, thresholds and any pause start afresh. */
export const budgetPeriodStarted = defineEvent({
  service: 'cost-governor',
  category: 'budget',
  name: 'period-started',
  schema: z.object({ budgetId: z.string(), periodStart: at, previousSpentMicros: microsSchema, at }),
});

export const budgetReserved = defineEvent({
  service: 'cost-governor',
  category: 'budget',
  name: 'reserved',
  schema: z.object({ budgetId: z.string(), reservationId: z.string(), amountMicros: microsSchema, model: z.string(), expiresAt: at, at }),
});

export const budgetSettled = defineEvent({
  service: 'cost-governor',
  category: 'budget',
  name: 'settled',
  schema: z.object({
    budgetId: z.string(),
    usageId: z.string(),
    reservationId: z.string().optional(),
    costMicros: microsSchema,
    /** The part of the reservation's hold given back (0 when there was none or it had expired). */
    releasedMicros: microsSchema,
    at,
  }),
});

export const budgetReservationExpired = defineEvent({
  service: 'cost-governor',
  category: 'budget',
  name: 'reservation-expired',
  schema: z.object({ budgetId: z.string(), reservationId: z.string(), releasedMicros: microsSchema, at }),
});

/** The caller gave a reservation back unused (the call failed before anything was billed). */
export const budgetReservationReleased = defineEvent({
  service: 'cost-governor',
  category: 'budget',
  name: 'reservation-released',
  schema: z.object({ budgetId: z.string(), reservationId: z.string(), releasedMicros: microsSchema, reason: z.string().optional(), at }),
});

export const thresholdLevelSchema = z.enum(['warning', 'critical']);

export const budgetThresholdCrossed = defineEvent({
  service: 'cost-governor',
  category: 'budget',
  name: 'threshold-crossed',
  schema: z.object({
    budgetId: z.string(),
    level: thresholdLevelSchema,
    percent: z.number().int(),
    spentMicros: microsSchema,
    limitMicros: microsSchema,
    periodStart: at,
    /** What happens now: downgrade one model tier (warning) or pause (critical). */
    action: z.enum(['downgrade', 'pause']),
    at,
  }),
});

export const budgetPaused = defineEvent({
  service: 'cost-governor',
  category: 'budget',
  name: 'paused',
  schema: z.object({
    budgetId: z.string(),
    scope: budgetScopeSchema,
    /** The team of the call that crossed 95%: its approvals queue gets the request. */
    team: z.string(),
    reason: z.string(),
    spentMicros: microsSchema,
    limitMicros: microsSchema,
    /** Added to the limit when an approval says yes without naming an amount. */
    proposedAddMicros: microsSchema,
    at,
  }),
});

export const budgetApprovalRequested = defineEvent({
  service: 'cost-governor',
  category: 'budget',
  name: 'approval-requested',
  schema: z.object({ budgetId: z.string(), approvalId: z.string(), team: z.string(), at }),
});

export const budgetResumed = defineEvent({
  service: 'cost-governor',
  category: 'budget',
  name: 'resumed',
  schema: z.object({
    budgetId: z.string(),
    addedMicros: microsSchema,
    limitMicros: microsSchema,
    resolvedBy: z.string(),
    approvalId: z.string().optional(),
    at,
  }),
});

export const budgetStopped = defineEvent({
  service: 'cost-governor',
  category: 'budget',
  name: 'stopped',
  schema: z.object({ budgetId: z.string(), resolvedBy: z.string(), reason: z.string().optional(), approvalId: z.string().optional(), at }),
});

export const budgetEvents = [
  budgetSet,
  budgetPeriodStarted,
  budgetReserved,
  budgetSettled,
  budgetReservationExpired,
  budgetReservationReleased,
  budgetThresholdCrossed,
  budgetPaused,
  budgetApprovalRequested,
  budgetResumed,
  budgetStopped,
];

export const budgetStatusSchema = z.enum(['active', 'paused', 'stopped']);

export const budgetViewSchema = z.object({
  budgetId: z.string(),
  scope: budgetScopeSchema,
  status: budgetStatusSchema,
  period: budgetPeriodSchema,
  periodStart: z.string(),
  limitMicros: microsSchema.optional(),
  spentMicros: microsSchema,
  reservedMicros: microsSchema,
  /** spent / limit in percent (two decimals); absent without a USD limit. */
  utilisation: z.number().optional(),
  turnInputTokens: z.number().int().optional(),
  turnOutputTokens: z.number().int().optional(),
  warned: z.boolean(),
  approvalId: z.string().optional(),
});
export type BudgetView = z.output<typeof budgetViewSchema>;

export const setBudget = defineCommand({
  service: 'cost-governor',
  name: 'set-budget',
  request: z.object({
    scope: budgetScopeSchema,
    limitUsd: usdAmountSchema.optional(),
    /** Seed 003 Req 4.1 input_budget_tokens / output_budget_tokens: caps per model call. */
    turnInputTokens: z.number().int().positive().optional(),
    turnOutputTokens: z.number().int().positive().optional(),
    period: budgetPeriodSchema.default('none'),
    setBy: z.string().min(1).max(200),
  }),
  response: z.object({ budgetId: z.string(), streamVersion: z.string() }),
});

export const spendEstimateSchema = z.object({
  inputTokens: z.number().int().nonnegative().max(100_000_000),
  cacheWrite5mTokens: z.number().int().nonnegative().max(100_000_000).default(0),
  cacheWrite1hTokens: z.number().int().nonnegative().max(100_000_000).default(0),
  cacheReadTokens: z.number().int().nonnegative().max(100_000_000).default(0),
  /** max_tokens of the call (thinking included): the worst case of the output side. */
  maxOutputTokens: z.number().int().positive().max(1_000_000),
});

export const spendDecisionSchema = z.enum(['allow', 'paused', 'stopped', 'exceeded']);

export const maySpend = defineCommand({
  service: 'cost-governor',
  name: 'may-spend',
  request: z.object({
    attribution: attributionSchema,
    signals: taskSignalsSchema.prefault({}),
    /** Explicit model (id or alias): replaces the signal rules; budget pressure still applies. */
    model: z.string().min(1).max(100).optional(),
    effort: effortLevelSchema.optional(),
    /** Non-interactive work runs on the Batch API (50%). */
    interactive: z.boolean().default(true),
    estimate: spendEstimateSchema,
  }),
  response: z.object({
    decision: spendDecisionSchema,
    /** BUDGET.PAUSED / BUDGET.STOPPED / BUDGET.EXCEEDED / BUDGET.TURN_CAP_EXCEEDED when not allowed. */
    code: z.string().optional(),
    message: z.string().optional(),
    routing: routingDecisionSchema,
    maxOutputTokens: z.number().int(),
    reservationId: z.string().optional(),
    reservedMicros: microsSchema,
    expiresAt: z.string().optional(),
    priceVersion: z.number().int(),
    approvalId: z.string().optional(),
    budgets: z.array(budgetViewSchema),
  }),
});

export const resolveBudgetPause = defineCommand({
  service: 'cost-governor',
  name: 'resolve-budget-pause',
  request: z.object({
    budgetId: z.string().min(1).max(300),
    decision: z.enum(['approve', 'deny']),
    /** Raise the limit by this much on approve (default: the amount proposed when it paused). */
    addUsd: usdAmountSchema.optional(),
    resolvedBy: z.string().min(1).max(200),
    reason: z.string().max(2_000).optional(),
  }),
  response: z.object({ budget: budgetViewSchema, streamVersion: z.string() }),
});

/** Gives a may-spend reservation back unused; RESERVATION.NOT_FOUND when no budget of the attribution holds it. */
export const releaseReservation = defineCommand({
  service: 'cost-governor',
  name: 'release-reservation',
  request: z.object({ attribution: attributionSchema, reservationId: z.string().min(1).max(100), reason: z.string().max(500).optional() }),
  response: z.object({ reservationId: z.string(), released: z.array(z.object({ budgetId: z.string(), releasedMicros: microsSchema })) }),
});

/** Budgets from the read model (dashboards): by team (session, agent and team budgets of its calls are listed by scope) or all. */
export const listBudgets = defineQuery({
  service: 'cost-governor',
  name: 'list-budgets',
  request: z.object({
    kind: z.enum(['session', 'agent', 'team', 'project']).optional(),
    team: z.string().max(200).optional(),
    status: budgetStatusSchema.optional(),
    limit: z.number().int().min(1).max(1_000).default(200),
  }),
  response: z.object({
    budgets: z.array(
      z.object({
        budgetId: z.string(),
        scope: budgetScopeSchema,
        status: budgetStatusSchema,
        period: budgetPeriodSchema,
        periodStart: z.string(),
        limitMicros: microsSchema.optional(),
        spentMicros: microsSchema,
        reservedMicros: microsSchema,
        utilisation: z.number().optional(),
        warned: z.boolean(),
        approvalId: z.string().optional(),
      }),
    ),
  }),
});

export const getBudget = defineQuery({
  service: 'cost-governor',
  name: 'get-budget',
  request: z.object({ budgetId: z.string().min(1).max(300) }),
  response: budgetViewSchema,
});
