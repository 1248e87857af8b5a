import { describe, expect, it } from 'vitest';
import { DeciderSpec } from '@headspace/event-store';
import { notificationDeliveryDecider, retryDelayMs, type NotificationDeliveryEvent } from './notification-delivery.decider';

const t0 = '2026-11-26T12:00:00.000Z';
const t1 = '2026-11-26T12:00:01.000Z';
const payload = { project: 'shop', groupId: 'grp_1', eventType: 'group.opened', eventId: 'e1', from: null, to: 'NEW', severity: null, occurredAt: t0 };
const ids = { deliveryId: 'dlv_1', project: 'shop' };
const scheduled: NotificationDeliveryEvent = {
  type: 'notification-delivery.scheduled',
  data: { ...ids, channel: 'webhook', target: 'ops', payload, maxAttempts: 3, scheduledAt: t0 },
};
const backoff = { baseMs: 1_000, maxMs: 60_000 };
const failedTry = (attempt: number, nextAttemptAt?: string): NotificationDeliveryEvent => ({
  type: 'notification-delivery.attempted',
  data: { ...ids, attempt, ok: false, httpStatus: 503, error: 'HTTP 503', durationMs: 12, ...(nextAttemptAt ? { nextAttemptAt } : {}), attemptedAt: t1 },
});
const attempt = (ok: boolean) => ({ type: 'record-attempt' as const, ok, ...(ok ? { httpStatus: 200 } : { httpStatus: 503, error: 'HTTP 503' }), durationMs: 12, backoff, now: t1 });

describe('notification delivery decider', () => {
  it('schedules once: a redelivered transition schedules nothing more', () => {
    DeciderSpec.for(notificationDeliveryDecider)
      .given([])
      .when({ type: 'schedule', ...ids, channel: 'webhook', target: 'ops', payload, maxAttempts: 3, now: t0 })
      .then([scheduled]);
    DeciderSpec.for(notificationDeliveryDecider)
      .given([scheduled])
      .when({ type: 'schedule', ...ids, channel: 'webhook', target: 'ops', payload, maxAttempts: 3, now: t1 })
      .then([]);
  });

  it('a failed try is retried after an exponentially growing delay', () => {
    DeciderSpec.for(notificationDeliveryDecider).given([scheduled]).when(attempt(false)).then([failedTry(1, '2026-11-26T12:00:02.000Z')]);
    DeciderSpec.for(notificationDeliveryDecider).given([scheduled, failedTry(1, t1)]).when(attempt(false)).then([failedTry(2, '2026-11-26T12:00:03.000Z')]);
    expect([1, 2, 3, 4, 10].map((n) => retryDelayMs(n, backoff))).toEqual([1_000, 2_000, 4_000, 8_000, 60_000]);
  });

  it('a success after failures ends the delivery as succeeded, counting every attempt', () => {
    DeciderSpec.for(notificationDeliveryDecider)
      .given([scheduled, failedTry(1, t1)])
      .when(attempt(true))
      .then([
        { type: 'notification-delivery.attempted', data: { ...ids, attempt: 2, ok: true, httpStatus: 200, durationMs: 12, attemptedAt: t1 } },
        { type: 'notification-delivery.succeeded', data: { ...ids, attempts: 2, succeededAt: t1 } },
      ]);
  });

  it('gives up after the last attempt, and records nothing after the end', () => {
    DeciderSpec.for(notificationDeliveryDecider)
      .given([scheduled, failedTry(1, t1), failedTry(2, t1)])
      .when(attempt(false))
      .then([failedTry(3), { type: 'notification-delivery.failed', data: { ...ids, attempts: 3, lastError: 'HTTP 503', failedAt: t1 } }]);
    DeciderSpec.for(notificationDeliveryDecider)
      .given([scheduled, failedTry(1, t1), failedTry(2, t1), failedTry(3), { type: 'notification-delivery.failed', data: { ...ids, attempts: 3, lastError: 'HTTP 503', failedAt: t1 } }])
      .when(attempt(true))
      .then([]);
  });

  it('abandons a delivery whose target was removed', () => {
    DeciderSpec.for(notificationDeliveryDecider)
      .given([scheduled])
      .when({ type: 'abandon', reason: 'webhook ops was removed', now: t1 })
      .then([{ type: 'notification-delivery.failed', data: { ...ids, attempts: 0, lastError: 'webhook ops was removed', failedAt: t1 } }]);
  });
});
