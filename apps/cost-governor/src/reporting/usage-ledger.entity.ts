import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/** A row of the usage ledger read model (spend.projection.ts; migrations/0001_cost_governor.sql). */
export const UsageLedgerRow = defineEntity({
  name: 'UsageLedgerRow',
  tableName: 'usage_ledger',
  properties: {
    usageId: p.text().primary(),
    taskId: p.text().nullable(),
    sessionId: p.text(),
    persona: p.text(),
    team: p.text(),
    project: p.text(),
    surface: p.text(),
    model: p.text(),
    tier: p.text().$type<'haiku' | 'sonnet' | 'opus'>(),
    serviceTier: p.text(),
    inputTokens: p.bigint('string'),
    outputTokens: p.bigint('string'),
    cacheWrite5m: p.bigint('string').fieldName('cache_write_5m'),
    cacheWrite1h: p.bigint('string').fieldName('cache_write_1h'),
    cacheReadTokens: p.bigint('string'),
    thinkingTokens: p.bigint('string'),
    costMicros: p.bigint('string'),
    priceVersion: p.integer(),
    reservationId: p.text().nullable(),
    occurredAt: p.datetime(),
    seq: p.bigint('string'),
  },
});
export type UsageLedgerRow = InferEntity<typeof UsageLedgerRow>;

/** Per team and persona: prompt tokens by cache use, and whether the hit rate alerts (usage-monitor.process.ts). */
export const CacheStatRow = defineEntity({
  name: 'CacheStatRow',
  tableName: 'cache_stats',
  properties: {
    team: p.text().primary(),
    persona: p.text().primary(),
    inputTokens: p.bigint('string'),
    cacheWriteTokens: p.bigint('string'),
    cacheReadTokens: p.bigint('string'),
    alerting: p.boolean(),
  },
});
export type CacheStatRow = InferEntity<typeof CacheStatRow>;

/** A project's last rate-limit status as the SDK reported it (spend.projection.ts). */
export const RateLimitRow = defineEntity({
  name: 'RateLimitRow',
  tableName: 'rate_limits',
  properties: {
    project: p.text().primary(),
    info: p.json<unknown>(),
    reportedAt: p.datetime(),
  },
});
export type RateLimitRow = InferEntity<typeof RateLimitRow>;
