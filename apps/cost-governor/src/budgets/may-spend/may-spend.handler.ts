import { randomUUID } from 'node:crypto';
import { Inject, Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, maySpend, type ResponseOf } from '@headspace/contracts';
import { idFromCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { APP_CONFIG } from '@headspace/platform';
import type { z } from 'zod';
import type { AppConfig } from '../../config';
import { costOf } from '@headspace/contracts';
import { recordBudgetMetrics, recordDecisionMetric } from '../../reporting/cost-metrics';
import { annotateDecisionSpan } from '../../reporting/cost-span-attributes';
import { routeModel } from '../../routing/model-router';
import { PriceCatalog } from '../../prices/price-catalog.service';
import { metadataOf } from '../../shared/event-metadata';
import { applicableBudgetIds } from '../applicable-budgets';
import { budgetDecider, type ActiveBudget, type BudgetCommand } from '../budget.decider';
import { BudgetGroupCommit } from '../budget-group-commit';
import { firstEventIds } from '../budget-tick';
import { maxPressure, pressureOf, toBudgetView } from '../budget-view';

type Reply = ResponseOf<typeof maySpend>;

/** Which refusal a caller hears when several budgets refuse: the most final one. */
const SEVERITY: Record<string, { rank: number; decision: Reply['decision'] }> = {
  [ErrorCodes.budgetStopped]: { rank: 4, decision: 'stopped' },
  [ErrorCodes.budgetPaused]: { rank: 3, decision: 'paused' },
  [ErrorCodes.budgetExceeded]: { rank: 2, decision: 'exceeded' },
  [ErrorCodes.budgetTurnCapExceeded]: { rank: 1, decision: 'exceeded' },
};

/**
 * `may-spend`: routes the call (signals, override, budget pressure, batch), prices its worst case
 * on the model that will actually run, and reserves that amount on every applicable budget — all
 * or none, each at its exact stream version, group-committed with the other budget commands of its
 * tick (BudgetGroupCommit). Refusals (paused, stopped, exceeded) are answers, not errors; nothing is
 * recorded for them.
 */
@Controller()
export class MaySpendHandler {
  constructor(
    private readonly groupCommit: BudgetGroupCommit,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly catalog: PriceCatalog,
  ) {}

  @MessagePattern(maySpend)
  async handle(@Payload() request: z.output<typeof maySpend.request>, @Ctx() ctx: RequestContext): Promise<Reply> {
    const commandId = ctx.commandId ?? randomUUID();
    const now = new Date();
    const reservationId = idFromCommand(commandId, 'reservation');
    const expiresAt = new Date(now.getTime() + this.config.HS_RESERVATION_TIMEOUT_MS).toISOString();
    const budgetIds = applicableBudgetIds(request.attribution);
    const metadata = metadataOf(ctx, commandId);
    const reply = await this.groupCommit.submit({
      budgetIds,
      probes: () => firstEventIds(commandId, budgetIds),
      work: (tick): Reply => {
        const states = tick.budgets(budgetIds);
        const budgets = [...states.values()];
        const prices = tick.prices;
        const routing = routeModel(
          { signals: request.signals, model: request.model, effort: request.effort, interactive: request.interactive, pressure: maxPressure(budgets.map(pressureOf)), fastModels: this.config.HS_FAST_MODE_MODELS, retirementWarningDays: this.config.HS_MODEL_RETIREMENT_WARN_DAYS },
          prices,
          now,
        );
        this.catalog.noteUse(prices, routing.model, now);
        const caps = budgets.map((b) => b.turnOutputTokens).filter((c): c is number => c !== undefined);
        const maxOutputTokens = Math.min(request.estimate.maxOutputTokens, ...caps);
        if (caps.length && maxOutputTokens < request.estimate.maxOutputTokens) routing.reasons.push(`max output clamped to the turn cap of ${maxOutputTokens} tokens`);
        const worst = costOf(prices.resolve(routing.model, now), prices.table.multipliers, { ...request.estimate, outputTokens: maxOutputTokens }, routing.batch).micros;
        const base = { routing, maxOutputTokens, priceVersion: prices.version };
        const reserve: BudgetCommand = {
          type: 'reserve',
          reservationId,
          amountMicros: worst,
          inputTokens: request.estimate.inputTokens + request.estimate.cacheWrite5mTokens + request.estimate.cacheWrite1hTokens + request.estimate.cacheReadTokens,
          model: routing.model,
          expiresAt,
          now: now.toISOString(),
        };

        if (tick.alreadyApplied(commandId, [...states.keys()])) {
          return { ...base, decision: 'allow' as const, reservationId, reservedMicros: worst.toString(), expiresAt, budgets: budgets.map(toBudgetView) };
        }
        const refusal = mostSevere(budgets, reserve);
        if (refusal) {
          const severity = SEVERITY[refusal.code];
          const approvalId = refusal.details?.approvalId as string | undefined;
          return {
            ...base,
            decision: severity.decision,
            code: refusal.code,
            message: refusal.message,
            reservedMicros: '0',
            ...(approvalId ? { approvalId } : {}),
            budgets: budgets.map(toBudgetView),
          };
        }
        const after = [...states.keys()].map((budgetId) => tick.apply(budgetId, reserve, commandId, metadata).state as ActiveBudget);
        return { ...base, decision: 'allow' as const, reservationId, reservedMicros: worst.toString(), expiresAt, budgets: after.map(toBudgetView) };
      },
    });
    recordDecisionMetric(reply.decision, reply.routing.tier);
    annotateDecisionSpan(reply.decision, reply.routing);
    recordBudgetMetrics(reply.budgets);
    return reply;
  }
}

function mostSevere(budgets: ActiveBudget[], command: BudgetCommand): HeadspaceError | undefined {
  let worst: HeadspaceError | undefined;
  for (const budget of budgets) {
    try {
      budgetDecider.decide(command, budget);
    } catch (error) {
      if (!(error instanceof HeadspaceError) || !SEVERITY[error.code]) throw error;
      if (!worst || SEVERITY[error.code].rank > SEVERITY[worst.code].rank) worst = error;
    }
  }
  return worst;
}
