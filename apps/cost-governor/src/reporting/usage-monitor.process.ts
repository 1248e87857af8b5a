import { Inject, Injectable } from '@nestjs/common';
import { EventStore } from '@headspace/event-store';
import { APP_CONFIG, EventProcessor } from '@headspace/platform';
import type { PoolClient } from 'pg';
import type { AppConfig } from '../config';
import { weeklyLimitOf } from '../quota/quota-limits';
import { weekStartOf } from '../quota/week';
import { cacheKey, quotaKey, watchUsage, type CacheCounters, type QuotaWeek, type UsageEvent } from './usage-watch';

/**
 * Watches the usage ledger and raises alerts as events: `cache.hit-rate-low` when an agent's cache
 * hit rate falls under HS_CACHE_HIT_RATE_ALERT (re-armed once it recovers), `quota.alert` when a
 * project's weekly consumption reaches HS_QUOTA_ALERT_PERCENT of its quota (once per week). Its
 * counters and the alerts are written in the transaction that advances its checkpoint, so each
 * alert is raised exactly once; unlike a projection it is never rebuilt. A batch costs a fixed
 * number of statements: the counters it touches are read once, folded in memory (watchUsage) and
 * written back once.
 */
@Injectable()
export class UsageMonitorProcess extends EventProcessor<UsageEvent> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    store: EventStore,
  ) {
    // Alerts, not answers: a quarter second late is fine, and a busy governor batches its usage here.
    super(store, { name: 'process:usage-monitor', types: ['usage.recorded'], pollIntervalMs: 250, wakeOnAppend: false });
  }

  protected handle(events: UsageEvent[], tx: PoolClient): Promise<void> {
    return this.watch(events, tx);
  }

  private async watch(events: UsageEvent[], tx: PoolClient): Promise<void> {
    const cache = await this.cacheCounters(events, tx);
    const quota = await this.quotaWeeks(events, tx);
    const limits = new Map<string, bigint | undefined>();
    const open = new Set([...quota].filter(([, week]) => !week.alerted).map(([key]) => key.split('\u0000')[0]));
    for (const project of open) limits.set(project, (await weeklyLimitOf(this.store, project, tx)).limit);
    const alerts = watchUsage(events, cache, quota, limits, {
      cacheMinTokens: this.config.HS_CACHE_MIN_TOKENS,
      cacheHitRateAlert: this.config.HS_CACHE_HIT_RATE_ALERT,
      quotaAlertPercent: this.config.HS_QUOTA_ALERT_PERCENT,
    });
    await tx.query(
      `INSERT INTO ${this.q}.cache_stats AS c (team, persona, input_tokens, cache_write_tokens, cache_read_tokens, alerting)
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r (team text, persona text, input bigint, write bigint, read bigint, alerting boolean)
       ON CONFLICT (team, persona) DO UPDATE SET input_tokens = EXCLUDED.input_tokens, cache_write_tokens = EXCLUDED.cache_write_tokens,
         cache_read_tokens = EXCLUDED.cache_read_tokens, alerting = EXCLUDED.alerting`,
      [JSON.stringify([...cache].map(([key, c]) => ({ ...splitKey(key, 'team', 'persona'), ...c })))],
    );
    await tx.query(
      `INSERT INTO ${this.q}.quota_weeks AS w (project, week_start, consumed_micros, alerted)
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r (project text, week_start timestamptz, consumed bigint, alerted boolean)
       ON CONFLICT (project, week_start) DO UPDATE SET consumed_micros = EXCLUDED.consumed_micros, alerted = EXCLUDED.alerted`,
      [JSON.stringify([...quota].map(([key, w]) => ({ ...splitKey(key, 'project', 'week_start'), consumed: w.consumed.toString(), alerted: w.alerted })))],
    );
    for (const alert of alerts) {
      await this.store.append(alert.streamId, [alert.event], { expected: 'any', commandId: alert.commandId, metadata: { causationId: alert.causationId }, client: tx });
    }
  }

  /** The counters of every agent in the batch (zero for a new one). */
  private async cacheCounters(events: UsageEvent[], tx: PoolClient): Promise<Map<string, CacheCounters>> {
    const keys = new Map(events.map((e) => [cacheKey(e.data.attribution.team, e.data.attribution.persona), e.data.attribution]));
    const counters = new Map<string, CacheCounters>([...keys.keys()].map((key) => [key, { input: 0, write: 0, read: 0, alerting: false }]));
    const { rows } = await tx.query<{ team: string; persona: string; input: string; write: string; read: string; alerting: boolean }>(
      `SELECT c.team, c.persona, c.input_tokens AS input, c.cache_write_tokens AS write, c.cache_read_tokens AS read, c.alerting
         FROM ${this.q}.cache_stats c JOIN unnest($1::text[], $2::text[]) AS k (team, persona) ON c.team = k.team AND c.persona = k.persona`,
      [[...keys.values()].map((a) => a.team), [...keys.values()].map((a) => a.persona)],
    );
    for (const r of rows) counters.set(cacheKey(r.team, r.persona), { input: Number(r.input), write: Number(r.write), read: Number(r.read), alerting: r.alerting });
    return counters;
  }

  /** The quota weeks of every project and week in the batch (empty for a new one). */
  private async quotaWeeks(events: UsageEvent[], tx: PoolClient): Promise<Map<string, QuotaWeek>> {
    const keys = new Map(events.map((e) => {
      const key = { project: e.data.attribution.project, week: weekStartOf(new Date(e.data.occurredAt)) };
      return [quotaKey(key.project, key.week), key];
    }));
    const weeks = new Map<string, QuotaWeek>([...keys.keys()].map((key) => [key, { consumed: 0n, alerted: false }]));
    const { rows } = await tx.query<{ project: string; week: string; consumed: string; alerted: boolean }>(
      `SELECT k.project, k.week, w.consumed_micros AS consumed, w.alerted
         FROM ${this.q}.quota_weeks w JOIN unnest($1::text[], $2::text[]) AS k (project, week) ON w.project = k.project AND w.week_start = k.week::timestamptz`,
      [[...keys.values()].map((k) => k.project), [...keys.values()].map((k) => k.week)],
    );
    for (const r of rows) weeks.set(quotaKey(r.project, r.week), { consumed: BigInt(r.consumed), alerted: r.alerted });
    return weeks;
  }
}

function splitKey<A extends string, B extends string>(key: string, a: A, b: B): Record<A | B, string> {
  const [first, second] = key.split('\u0000');
  return { [a]: first, [b]: second } as Record<A | B, string>;
}
