import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { microsToUsd, recordUsage, type EventData, type ResponseOf, type usageRecorded } from '@headspace/contracts';
import { EventStore, idFromCommand, type RecordedEvent } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import type { AppConfig } from '../../config';
import { applicableBudgetIds } from '../../budgets/applicable-budgets';
import type { ActiveBudget } from '../../budgets/budget.decider';
import { BudgetRepository } from '../../budgets/budget.repository';
import { toBudgetView } from '../../budgets/budget-view';
import { costOf } from '../../prices/cost';
import { PriceCatalog } from '../../prices/price-catalog.service';
import { recordBudgetMetrics, recordUsageMetrics } from '../../reporting/cost-metrics';
import { annotateUsageSpan } from '../../reporting/cost-span-attributes';
import { metadataOf } from '../../shared/event-metadata';
import { ServedHandler } from '../../shared/served-handler';

export const usageStreamId = (usageId: string) => `usage-${usageId}`;

type Reply = ResponseOf<typeof recordUsage>;

/**
 * `record-usage`: prices the call with the table in effect (an unknown model is refused before
 * anything is written), records `usage.recorded` in the ledger and settles it on every applicable
 * budget in the same transaction — releasing the reservation's hold, charging the real cost and
 * firing thresholds. Settling never fails on a paused or stopped budget: in-flight calls finish.
 * Idempotent by command id (the usage id derives from it).
 */
@Injectable()
export class RecordUsageHandler extends ServedHandler<typeof recordUsage> {
  constructor(
    private readonly budgets: BudgetRepository,
    private readonly store: EventStore,
    private readonly catalog: PriceCatalog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(recordUsage, nc);
  }

  async handle(request: z.output<typeof recordUsage.request>, ctx: RequestContext): Promise<Reply> {
    const commandId = ctx.commandId ?? randomUUID();
    const usageId = idFromCommand(commandId, 'usage');
    const occurredAt = request.occurredAt ?? new Date().toISOString();
    const prices = await this.catalog.fresh();
    const price = prices.resolve(request.model, new Date(occurredAt));
    const cost = costOf(price, prices.table.multipliers, request.tokens, request.serviceTier === 'batch');
    const metadata = metadataOf(ctx, commandId);
    const budgetIds = applicableBudgetIds(request.attribution);
    const outcome = await this.budgets.batched(budgetIds, async (bt) => {
      const states = await bt.lock(budgetIds);
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
      // The usage stream is this command's: an existing one means a retry, answered as the first time.
      const appended = await this.store.append(usageStreamId(usageId), [{ type: 'usage.recorded', data }], { expected: 'no-stream', commandId, metadata, client: bt.tx });
      if (appended.replayed) {
        const [first] = (await this.store.readStream(usageStreamId(usageId), { client: bt.tx })) as Array<RecordedEvent<EventData<typeof usageRecorded>>>;
        return { data: first.data, budgets: [...states.values()], fresh: false };
      }
      const after: ActiveBudget[] = [];
      for (const budgetId of states.keys()) {
        const settle = {
          type: 'settle' as const,
          usageId,
          reservationId: request.reservationId,
          costMicros: cost.micros,
          team: request.attribution.team,
          topUpPercent: this.config.HS_BUDGET_TOPUP_PERCENT,
          now: new Date().toISOString(),
        };
        after.push((await bt.apply(budgetId, settle, commandId, metadata)).state as ActiveBudget);
      }
      return { data, budgets: after, fresh: true };
    });
    if (outcome.fresh) {
      recordUsageMetrics(request.attribution, outcome.data.model, request.tokens, cost.micros);
      annotateUsageSpan(request.attribution, outcome.data.model, request.tokens, microsToUsd(cost.micros));
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
}
