import { describe, expect, it } from 'vitest';
import { cacheKey, quotaKey, watchUsage, type CacheCounters, type QuotaWeek, type UsageEvent } from './usage-watch';

const week = '2026-11-16T00:00:00.000Z';
const settings = { cacheMinTokens: 1_000, cacheHitRateAlert: 0.7, quotaAlertPercent: 80 };
let seq = 0;
const usage = (persona: string, tokens: { input: number; read: number }, costMicros: string): UsageEvent =>
  ({
    eventId: `e${++seq}`,
    data: {
      attribution: { sessionId: 's', persona, team: 't', project: 'p', surface: 'cli' },
      tokens: { inputTokens: tokens.input, outputTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: tokens.read, thinkingTokens: 0 },
      costMicros,
      occurredAt: '2026-11-18T12:00:00.000Z',
    },
  }) as UsageEvent;

const fresh = () => ({
  cache: new Map<string, CacheCounters>([[cacheKey('t', 'al'), { input: 0, write: 0, read: 0, alerting: false }]]),
  quota: new Map<string, QuotaWeek>([[quotaKey('p', week), { consumed: 0n, alerted: false }]]),
});

describe('usage watch', () => {
  it('raises the hit-rate alert once while low, re-arms on recovery and raises it again', () => {
    const { cache, quota } = fresh();
    const events = [usage('al', { input: 900, read: 100 }, '1'), usage('al', { input: 100, read: 0 }, '1'), usage('al', { input: 0, read: 9_000 }, '1'), usage('al', { input: 40_000, read: 0 }, '1')];
    const alerts = watchUsage(events, cache, quota, new Map([['p', undefined]]), settings);
    expect(alerts.map((a) => [a.event.type, a.commandId])).toEqual([
      ['cache.hit-rate-low', `cache-alert:${events[0].eventId}`],
      ['cache.hit-rate-low', `cache-alert:${events[3].eventId}`],
    ]);
    expect(cache.get(cacheKey('t', 'al'))).toEqual({ input: 41_000, write: 0, read: 9_100, alerting: true });
  });

  it('raises the weekly quota alert once, at the record that reaches the alert share', () => {
    const { cache, quota } = fresh();
    const events = ['500000', '300000', '100000'].map((cost) => usage('al', { input: 0, read: 0 }, cost));
    const alerts = watchUsage(events, cache, quota, new Map([['p', 1_000_000n]]), settings);
    expect(alerts.map((a) => [a.event.type, (a.event.data as { utilisation: number }).utilisation, a.causationId])).toEqual([['quota.alert', 0.8, events[1].eventId]]);
    expect(quota.get(quotaKey('p', week))).toEqual({ consumed: 900_000n, alerted: true });
  });
});
