import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { raw } from '@mikro-orm/postgresql';
import { getQuota, rateLimitInfoSchema } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { RateLimitRow, UsageLedgerRow } from '../../reporting/usage-ledger.entity';
import { weeklyLimitOf } from '../quota-limits';
import { predictExhaustion, weekStartOf } from '../week';

/** `get-quota`: this week's consumption by surface and agent, run rate, predicted exhaustion, last rate-limit status. */
@Controller()
export class GetQuotaHandler {
  constructor(
    private readonly store: EventStore,
    private readonly reads: ReadModel,
  ) {}

  @MessagePattern(getQuota)
  async handle(request: z.output<typeof getQuota.request>) {
    const now = new Date();
    const weekStart = weekStartOf(now);
    const { limit } = await weeklyLimitOf(this.store, request.project);
    const em = this.reads.em();
    const by = (column: 'surface' | 'persona') =>
      em
        .createQueryBuilder(UsageLedgerRow)
        .select([raw(`${column} AS key, sum(cost_micros)::text AS cost`)])
        .where({ project: request.project, occurredAt: { $gte: new Date(weekStart) } })
        .groupBy(column)
        .orderBy({ [column]: 'asc' })
        .execute<{ key: string; cost: string }[]>('all', false);
    const bySurface = await by('surface');
    const byAgent = await by('persona');
    const consumed = bySurface.reduce((sum, r) => sum + BigInt(r.cost), 0n);
    const prediction = predictExhaustion(consumed, limit, weekStart, now);
    const rateLimit = await em.findOne(RateLimitRow, { project: request.project }, { fields: ['info'] });
    return {
      project: request.project,
      weekStart,
      ...(limit === undefined ? {} : { weeklyLimitMicros: limit.toString(), utilisation: limit === 0n ? 1 : Number((consumed * 10_000n) / limit) / 10_000 }),
      consumedMicros: consumed.toString(),
      runRateMicrosPerHour: prediction.perHour.toString(),
      ...(prediction.at ? { predictedExhaustionAt: prediction.at } : {}),
      bySurface: bySurface.map((r) => ({ surface: r.key, costMicros: r.cost })),
      byAgent: byAgent.map((r) => ({ persona: r.key, costMicros: r.cost })),
      ...(rateLimit ? { lastRateLimit: rateLimitInfoSchema.parse(rateLimit.info) } : {}),
    };
  }
}
