import type { cacheHitRateLow, EventData, quotaAlert, usageRecorded } from '@headspace/contracts';
import type { RecordedEvent } from '@headspace/event-store';
import { predictExhaustion, weekStartOf } from '../quota/week';

export type UsageEvent = RecordedEvent<EventData<typeof usageRecorded>>;

/** An agent's prompt-token counters and whether its low-hit-rate alert is raised. */
export interface CacheCounters {
  input: number;
  write: number;
  read: number;
  alerting: boolean;
}

/** A project's consumption in one quota week and whether its alert fired. */
export interface QuotaWeek {
  consumed: bigint;
  alerted: boolean;
}

export interface WatchSettings {
  cacheMinTokens: number;
  cacheHitRateAlert: number;
  quotaAlertPercent: number;
}

/** An alert to append: its stream, event and the command id that makes it exactly-once. */
export interface UsageAlert {
  streamId: string;
  event: { type: 'cache.hit-rate-low'; data: EventData<typeof cacheHitRateLow> } | { type: 'quota.alert'; data: EventData<typeof quotaAlert> };
  commandId: string;
  causationId: string;
}

export const cacheKey = (team: string, persona: string) => `${team}\u0000${persona}`;
export const quotaKey = (project: string, weekStart: string) => `${project}\u0000${weekStart}`;

/**
 * Folds a batch of usage records, in log order, into the agents' cache counters and the projects'
 * quota weeks (the maps hold every key the batch touches and are updated in place) and returns the
 * alerts raised: an agent falling under the hit-rate threshold once it has enough prompt tokens
 * (re-armed when it recovers), a project reaching the alert share of its weekly quota (once a week).
 */
export function watchUsage(
  events: UsageEvent[],
  cache: Map<string, CacheCounters>,
  quota: Map<string, QuotaWeek>,
  weeklyLimits: Map<string, bigint | undefined>,
  settings: WatchSettings,
): UsageAlert[] {
  const alerts: UsageAlert[] = [];
  for (const event of events) {
    const { attribution: a, tokens: t, occurredAt } = event.data;
    const counters = cache.get(cacheKey(a.team, a.persona))!;
    counters.input += t.inputTokens;
    counters.write += t.cacheWrite5mTokens + t.cacheWrite1hTokens;
    counters.read += t.cacheReadTokens;
    const total = counters.input + counters.write + counters.read;
    const hitRate = counters.read / total;
    const low = hitRate < settings.cacheHitRateAlert;
    if (total >= settings.cacheMinTokens && low !== counters.alerting) {
      counters.alerting = low;
      if (low) {
        alerts.push({
          streamId: `cache-${a.team}.${a.persona}`,
          event: { type: 'cache.hit-rate-low', data: { team: a.team, persona: a.persona, hitRate, threshold: settings.cacheHitRateAlert, at: occurredAt } },
          commandId: `cache-alert:${event.eventId}`,
          causationId: event.eventId,
        });
      }
    }

    const weekStart = weekStartOf(new Date(occurredAt));
    const week = quota.get(quotaKey(a.project, weekStart))!;
    week.consumed += BigInt(event.data.costMicros);
    const limit = weeklyLimits.get(a.project);
    if (week.alerted || limit === undefined || week.consumed * 100n < BigInt(settings.quotaAlertPercent) * limit) continue;
    week.alerted = true;
    const prediction = predictExhaustion(week.consumed, limit, weekStart, new Date(occurredAt));
    alerts.push({
      streamId: `quotaalert-${a.project}.weekly.${weekStart}`,
      event: {
        type: 'quota.alert',
        data: {
          project: a.project,
          source: 'weekly-quota',
          utilisation: limit === 0n ? 1 : Number((week.consumed * 10_000n) / limit) / 10_000,
          weekStart,
          ...(prediction.at ? { predictedExhaustionAt: prediction.at } : {}),
          at: occurredAt,
        },
      },
      commandId: `quota-alert:${event.eventId}`,
      causationId: event.eventId,
    });
  }
  return alerts;
}
