import { Injectable } from '@nestjs/common';
import type { EventData, rateLimitStatusRecorded, usageRecorded } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';

type UsageEvent = RecordedEvent<EventData<typeof usageRecorded>>;

/** The usage ledger by every attribution key (reporting, quotas) and the latest rate-limit status per project. */
@Injectable()
export class SpendProjection extends Projection {
  constructor(store: EventStore) {
    super(store, { name: 'spend', types: ['usage.recorded', 'quota.rate-limit-status'], tables: ['usage_ledger', 'rate_limits'] });
  }

  /** The batch's usage records in one insert (the two tables are independent, so order between them does not matter). */
  protected override async handle(events: RecordedEvent[], tx: PoolClient): Promise<void> {
    const usage = events.filter((e): e is UsageEvent => e.type === 'usage.recorded');
    if (usage.length > 0) await this.insertUsage(usage, tx);
    for (const event of events) if (event.type !== 'usage.recorded') await this.apply(event, tx);
  }

  protected async apply(event: RecordedEvent, tx: PoolClient): Promise<void> {
    if (event.type === 'usage.recorded') return this.insertUsage([event as UsageEvent], tx);
    const d = event.data as EventData<typeof rateLimitStatusRecorded>;
    await tx.query(
      `INSERT INTO ${this.q}.rate_limits (project, info, reported_at) VALUES ($1, $2, $3)
       ON CONFLICT (project) DO UPDATE SET info = EXCLUDED.info, reported_at = EXCLUDED.reported_at`,
      [d.project, JSON.stringify(d.info), d.at],
    );
  }

  private async insertUsage(events: UsageEvent[], tx: PoolClient): Promise<void> {
    const rows = events.map(({ data: d, globalPosition }) => {
      const [a, t] = [d.attribution, d.tokens];
      return {
        usage_id: d.usageId, task_id: a.taskId ?? null, session_id: a.sessionId, persona: a.persona, team: a.team, project: a.project, surface: a.surface,
        model: d.model, tier: d.tier, service_tier: d.serviceTier, input_tokens: t.inputTokens, output_tokens: t.outputTokens,
        cache_write_5m: t.cacheWrite5mTokens, cache_write_1h: t.cacheWrite1hTokens, cache_read_tokens: t.cacheReadTokens, thinking_tokens: t.thinkingTokens,
        cost_micros: d.costMicros, price_version: d.priceVersion, reservation_id: d.reservationId ?? null, occurred_at: d.occurredAt, seq: globalPosition.toString(),
      };
    });
    await tx.query(
      `INSERT INTO ${this.q}.usage_ledger
       SELECT * FROM jsonb_populate_recordset(NULL::${this.q}.usage_ledger, $1::jsonb) ON CONFLICT (usage_id) DO NOTHING`,
      [JSON.stringify(rows)],
    );
  }
}
