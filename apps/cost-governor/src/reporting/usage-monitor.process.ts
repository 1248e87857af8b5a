import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { EventData, usageRecorded } from '@headspace/contracts';
import { EventStore, ProcessorRunner, quoteIdent, type RecordedEvent } from '@headspace/event-store';
import { APP_CONFIG, PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool, PoolClient } from 'pg';
import type { AppConfig } from '../config';
import { weeklyLimitOf } from '../quota/quota-limits';
import { predictExhaustion, weekStartOf } from '../quota/week';

/**
 * Watches the usage ledger and raises alerts as events: `cache.hit-rate-low` when an agent's cache
 * hit rate falls under HS_CACHE_HIT_RATE_ALERT (re-armed once it recovers), `quota.alert` when a
 * project's weekly consumption reaches HS_QUOTA_ALERT_PERCENT of its quota (once per week). Its
 * counters and the alerts are written in the transaction that advances its checkpoint, so each
 * alert is raised exactly once; unlike a projection it is never rebuilt.
 */
@Injectable()
export class UsageMonitorProcess implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('UsageMonitor');
  readonly runner: ProcessorRunner;
  private readonly q: string;

  constructor(
    @Inject(PG_POOL) pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: EventStore,
  ) {
    this.q = quoteIdent(schema);
    this.runner = new ProcessorRunner({
      pool,
      schema,
      name: 'process:usage-monitor',
      types: ['usage.recorded'],
      decode: (event) => store.validated(event),
      handle: async (events, tx) => {
        for (const event of events) await this.watch(event as RecordedEvent<EventData<typeof usageRecorded>>, tx);
      },
      onError: (error) => this.logger.warn(`usage monitor: ${(error as Error).message}`),
    });
  }

  onApplicationBootstrap(): void {
    this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  private async watch(event: RecordedEvent<EventData<typeof usageRecorded>>, tx: PoolClient): Promise<void> {
    await this.watchCache(event, tx);
    await this.watchQuota(event, tx);
  }

  private async watchCache(event: RecordedEvent<EventData<typeof usageRecorded>>, tx: PoolClient): Promise<void> {
    const { attribution: a, tokens: t } = event.data;
    const { rows } = await tx.query<{ input: string; write: string; read: string; alerting: boolean }>(
      `INSERT INTO ${this.q}.cache_stats AS c (team, persona, input_tokens, cache_write_tokens, cache_read_tokens) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (team, persona) DO UPDATE SET input_tokens = c.input_tokens + EXCLUDED.input_tokens,
         cache_write_tokens = c.cache_write_tokens + EXCLUDED.cache_write_tokens, cache_read_tokens = c.cache_read_tokens + EXCLUDED.cache_read_tokens
       RETURNING input_tokens::text AS input, cache_write_tokens::text AS write, cache_read_tokens::text AS read, alerting`,
      [a.team, a.persona, t.inputTokens, t.cacheWrite5mTokens + t.cacheWrite1hTokens, t.cacheReadTokens],
    );
    const [input, write, read] = [rows[0].input, rows[0].write, rows[0].read].map(Number);
    const total = input + write + read;
    if (total < this.config.HS_CACHE_MIN_TOKENS) return;
    const hitRate = read / total;
    const low = hitRate < this.config.HS_CACHE_HIT_RATE_ALERT;
    if (low === rows[0].alerting) return;
    await tx.query(`UPDATE ${this.q}.cache_stats SET alerting = $3 WHERE team = $1 AND persona = $2`, [a.team, a.persona, low]);
    if (!low) return;
    await this.store.append(
      `cache-${a.team}.${a.persona}`,
      [{ type: 'cache.hit-rate-low', data: { team: a.team, persona: a.persona, hitRate, threshold: this.config.HS_CACHE_HIT_RATE_ALERT, at: event.data.occurredAt } }],
      { expected: 'any', commandId: `cache-alert:${event.eventId}`, metadata: { causationId: event.eventId }, client: tx },
    );
  }

  private async watchQuota(event: RecordedEvent<EventData<typeof usageRecorded>>, tx: PoolClient): Promise<void> {
    const project = event.data.attribution.project;
    const weekStart = weekStartOf(new Date(event.data.occurredAt));
    const { rows } = await tx.query<{ consumed: string; alerted: boolean }>(
      `INSERT INTO ${this.q}.quota_weeks AS w (project, week_start, consumed_micros) VALUES ($1, $2, $3)
       ON CONFLICT (project, week_start) DO UPDATE SET consumed_micros = w.consumed_micros + EXCLUDED.consumed_micros
       RETURNING consumed_micros::text AS consumed, alerted`,
      [project, weekStart, event.data.costMicros],
    );
    if (rows[0].alerted) return;
    const { limit } = await weeklyLimitOf(this.store, project, tx);
    const consumed = BigInt(rows[0].consumed);
    if (limit === undefined || consumed * 100n < BigInt(this.config.HS_QUOTA_ALERT_PERCENT) * limit) return;
    await tx.query(`UPDATE ${this.q}.quota_weeks SET alerted = true WHERE project = $1 AND week_start = $2`, [project, weekStart]);
    const prediction = predictExhaustion(consumed, limit, weekStart, new Date(event.data.occurredAt));
    await this.store.append(
      `quotaalert-${project}.weekly.${weekStart}`,
      [
        {
          type: 'quota.alert',
          data: {
            project,
            source: 'weekly-quota',
            utilisation: limit === 0n ? 1 : Number((consumed * 10_000n) / limit) / 10_000,
            weekStart,
            ...(prediction.at ? { predictedExhaustionAt: prediction.at } : {}),
            at: event.data.occurredAt,
          },
        },
      ],
      { expected: 'any', commandId: `quota-alert:${event.eventId}`, metadata: { causationId: event.eventId }, client: tx },
    );
  }
}
