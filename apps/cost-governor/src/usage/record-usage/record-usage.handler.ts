import { randomUUID } from 'node:crypto';
import { Inject, Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { microsToUsd, recordUsage, type EventData, type ResponseOf, type usageRecorded } from '@headspace/contracts';
import { EventStore, idFromCommand, type RecordedEvent } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { APP_CONFIG } from '@headspace/platform';
import type { z } from 'zod';
import type { AppConfig } from '../../config';
import { applicableBudgetIds } from '../../budgets/applicable-budgets';
import type { ActiveBudget } from '../../budgets/budget.decider';
import { BudgetGroupCommit } from '../../budgets/budget-group-commit';
import { firstEventId } from '../../budgets/budget-tick';
import { toBudgetView } from '../../budgets/budget-view';
import { costOf } from '@headspace/contracts';
import { recordBudgetMetrics, recordUsageMetrics } from '../../reporting/cost-metrics';
import { annotateUsageSpan } from '../../reporting/cost-span-attributes';
import { metadataOf } from '../../shared/event-metadata';

export const usageStreamId = (usageId: string) => `usage-${usageId}`;

type Reply = ResponseOf<typeof recordUsage>;

/**
 * `record-usage`: prices the call with the table in effect (an unknown model is refused before
 * anything is written), records `usage.recorded` in the ledger and settles it on every applicable
 * budget in the same append (group-committed, see BudgetGroupCommit) — releasing the reservation's hold, charging the real cost and
 * firing thresholds. Settling never fails on a paused or stopped budget: in-flight calls finish.
 * Idempotent by command id (the usage id derives from it).
 */
@Controller()
export class RecordUsageHandler {
  constructor(
    private readonly groupCommit: BudgetGroupCommit,
    private readonly store: EventStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @MessagePattern(recordUsage)
  async handle(@Payload() request: z.output<typeof recordUsage.request>, @Ctx() ctx: RequestContext): Promise<Reply> {
    const commandId = ctx.commandId ?? randomUUID();
    const usageId = idFromCommand(commandId, 'usage');
    const occurredAt = request.occurredAt ?? new Date().toISOString();
    const metadata = metadataOf(ctx, commandId);
    const budgetIds = applicableBudgetIds(request.attribution);
    const usageStream = usageStreamId(usageId);
    const decided = await this.groupCommit.submit({
      budgetIds,
      probes: () => [firstEventId(commandId, usageStream)],
      work: (tick) => {
        const prices = tick.prices;
        const price = prices.resolve(request.model, new Date(occurredAt));
        const cost = costOf(price, prices.table.multipliers, request.tokens, request.serviceTier === 'batch');
        const states = tick.budgets(budgetIds);
        // The usage stream is this command's: already there means a retry, answered as the first time.
        if (tick.appended(commandId, usageStream)) return { cost, budgets: [...states.values()], fresh: false as const };
        const data: EventData<typeof usageRecorded> = {
          usageId,
          attribution: request.attribution,
          model: price.id,
          tier: price.tier,
          serviceTier: request.serviceTier,
          tokens: request.tokens,
          costMicros: cost.micros.toString(),
          longContext: cost.longContext,
          priceVersion: prices.version,
          ...(request.reservationId ? { reservationId: request.reservationId } : {}),
          occurredAt,
        };
        tick.create(usageStream, [{ type: 'usage.recorded', data }], commandId, metadata);
        const settle = {
          type: 'settle' as const,
          usageId,
          reservationId: request.reservationId,
          costMicros: cost.micros,
          team: request.attribution.team,
          topUpPercent: this.config.HS_BUDGET_TOPUP_PERCENT,
          now: new Date().toISOString(),
        };
        const after = [...states.keys()].map((budgetId) => tick.apply(budgetId, settle, commandId, metadata).state as ActiveBudget);
        return { cost, data, budgets: after, fresh: true as const };
      },
    });
    const outcome = decided.fresh ? decided : { ...decided, data: await this.recorded(usageId) };
    if (outcome.fresh) {
      recordUsageMetrics(request.attribution, outcome.data.model, request.tokens, outcome.cost.micros);
      annotateUsageSpan(request.attribution, outcome.data.model, request.tokens, microsToUsd(outcome.cost.micros));
      recordBudgetMetrics(outcome.budgets.map(toBudgetView));
    }
    return {
      usageId,
      model: outcome.data.model,
      costMicros: outcome.data.costMicros,
      costUsd: microsToUsd(outcome.data.costMicros),
      priceVersion: outcome.data.priceVersion,
      budgets: outcome.budgets.map((b) => ({ budgetId: b.budgetId, spentMicros: b.spent.toString(), ...(b.limit === undefined ? {} : { limitMicros: b.limit.toString() }) })),
    };
  }

  private async recorded(usageId: string): Promise<EventData<typeof usageRecorded>> {
    const [first] = (await this.store.readStream(usageStreamId(usageId))) as Array<RecordedEvent<EventData<typeof usageRecorded>>>;
    return first.data;
  }
}
