import { Inject, Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { getQuota, rateLimitInfoSchema } from '@headspace/contracts';
import { EventStore, quoteIdent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import type { z } from 'zod';
import { weeklyLimitOf } from '../quota-limits';
import { predictExhaustion, weekStartOf } from '../week';

/** `get-quota`: this week's consumption by surface and agent, run rate, predicted exhaustion, last rate-limit status. */
@Controller()
export class GetQuotaHandler {
  private readonly q: string;

  constructor(
    private readonly store: EventStore,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
  ) {
    this.q = quoteIdent(schema);
  }

  @MessagePattern(getQuota)
  async handle(request: z.output<typeof getQuota.request>) {
    const now = new Date();
    const weekStart = weekStartOf(now);
    const { limit } = await weeklyLimitOf(this.store, request.project);
    const by = async (column: 'surface' | 'persona') =>
      (
        await this.pool.query<{ key: string; cost: string }>(
          `SELECT ${column} AS key, sum(cost_micros)::text AS cost FROM ${this.q}.usage_ledger WHERE project = $1 AND occurred_at >= $2 GROUP BY 1 ORDER BY 1`,
          [request.project, weekStart],
        )
      ).rows;
    const bySurface = await by('surface');
    const byAgent = await by('persona');
    const consumed = bySurface.reduce((sum, r) => sum + BigInt(r.cost), 0n);
    const prediction = predictExhaustion(consumed, limit, weekStart, now);
    const { rows } = await this.pool.query<{ info: unknown }>(`SELECT info FROM ${this.q}.rate_limits WHERE project = $1`, [request.project]);
    return {
      project: request.project,
      weekStart,
      ...(limit === undefined ? {} : { weeklyLimitMicros: limit.toString(), utilisation: limit === 0n ? 1 : Number((consumed * 10_000n) / limit) / 10_000 }),
      consumedMicros: consumed.toString(),
      runRateMicrosPerHour: prediction.perHour.toString(),
      ...(prediction.at ? { predictedExhaustionAt: prediction.at } : {}),
      bySurface: bySurface.map((r) => ({ surface: r.key, costMicros: r.cost })),
      byAgent: byAgent.map((r) => ({ persona: r.key, costMicros: r.cost })),
      ...(rows.length ? { lastRateLimit: rateLimitInfoSchema.parse(rows[0].info) } : {}),
    };
  }
}
