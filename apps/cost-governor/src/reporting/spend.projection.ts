import { Inject, Injectable } from '@nestjs/common';
import type { EventData, rateLimitStatusRecorded, usageRecorded } from '@headspace/contracts';
import { EventStore, quoteIdent, type RecordedEvent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool, PoolClient } from 'pg';
import { Projection } from '../shared/projection';

/** The usage ledger by every attribution key (reporting, quotas) and the latest rate-limit status per project. */
@Injectable()
export class SpendProjection extends Projection {
  private readonly q: string;

  constructor(@Inject(PG_POOL) pool: Pool, @Inject(SERVICE_SCHEMA) schema: string, store: EventStore) {
    super(pool, schema, store, 'spend', ['usage.recorded', 'quota.rate-limit-status']);
    this.q = quoteIdent(schema);
  }

  protected async reset(tx: PoolClient): Promise<void> {
    await tx.query(`TRUNCATE ${this.q}.usage_ledger, ${this.q}.rate_limits`);
  }

  protected async apply(event: RecordedEvent, tx: PoolClient): Promise<void> {
    if (event.type === 'quota.rate-limit-status') {
      const d = event.data as EventData<typeof rateLimitStatusRecorded>;
      await tx.query(
        `INSERT INTO ${this.q}.rate_limits (project, info, reported_at) VALUES ($1, $2, $3)
         ON CONFLICT (project) DO UPDATE SET info = EXCLUDED.info, reported_at = EXCLUDED.reported_at`,
        [d.project, JSON.stringify(d.info), d.at],
      );
      return;
    }
    const d = event.data as EventData<typeof usageRecorded>;
    const a = d.attribution;
    const t = d.tokens;
    await tx.query(
      `INSERT INTO ${this.q}.usage_ledger (usage_id, task_id, session_id, persona, team, project, surface, model, tier, service_tier,
         input_tokens, output_tokens, cache_write_5m, cache_write_1h, cache_read_tokens, thinking_tokens, cost_micros, price_version, reservation_id, occurred_at, seq)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21) ON CONFLICT (usage_id) DO NOTHING`,
      [
        d.usageId, a.taskId ?? null, a.sessionId, a.persona, a.team, a.project, a.surface, d.model, d.tier, d.serviceTier,
        t.inputTokens, t.outputTokens, t.cacheWrite5mTokens, t.cacheWrite1hTokens, t.cacheReadTokens, t.thinkingTokens,
        d.costMicros, d.priceVersion, d.reservationId ?? null, d.occurredAt, event.globalPosition.toString(),
      ],
    );
  }
}
