import { describe, expect, it } from 'vitest';
import { decideAttempt, decideHealth, retryDelayMs, type DeliveryPolicy } from './delivery.decider';

const policy: DeliveryPolicy = { backoffMs: 1_000, backoffMaxMs: 60_000, retryForMs: 86_400_000, disableAfterMs: 3_600_000 };
const t0 = '2026-01-01T00:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(t0) + ms).toISOString();

describe('webhook delivery decider', () => {
  it('marks a delivery answered 2xx as succeeded and counts the attempt', () => {
    expect(decideAttempt({ attempts: 2, firstAttemptAt: t0 }, { ok: true, responseStatus: 204 }, policy, at(5_000))).toEqual({
      state: 'succeeded',
      attempts: 3,
      firstAttemptAt: t0,
      finishedAt: at(5_000),
    });
  });

  it('retries a failure after a backoff that doubles with each failure', () => {
    const first = decideAttempt({ attempts: 0, firstAttemptAt: null }, { ok: false, responseStatus: 500 }, policy, t0);
    expect(first).toMatchObject({ state: 'pending', attempts: 1, firstAttemptAt: t0, nextAttemptAt: at(1_000), lastError: 'HTTP 500' });
    const third = decideAttempt({ attempts: 2, firstAttemptAt: t0 }, { ok: false, error: 'ECONNREFUSED' }, policy, at(10_000));
    expect(third).toMatchObject({ state: 'pending', attempts: 3, nextAttemptAt: at(14_000), lastError: 'ECONNREFUSED' });
  });

  it('caps the backoff at its maximum', () => {
    expect(retryDelayMs(30, policy)).toBe(60_000);
    expect(retryDelayMs(2_000, policy)).toBe(60_000);
  });

  it('gives a delivery up once its next attempt would fall past the retry window', () => {
    const late = decideAttempt({ attempts: 40, firstAttemptAt: t0 }, { ok: false, error: 'timed out' }, policy, at(86_400_000 - 30_000));
    expect(late).toEqual({ state: 'failed', attempts: 41, firstAttemptAt: t0, finishedAt: at(86_400_000 - 30_000), lastError: 'timed out' });
  });
});

describe('webhook subscription health', () => {
  it('starts a failing streak at the first failure and clears it on a success', () => {
    expect(decideHealth(null, false, policy, t0)).toEqual({ failingSince: t0 });
    expect(decideHealth(t0, true, policy, at(1_000))).toEqual({ failingSince: null });
  });

  it('disables a subscription failing for longer than the limit, naming why', () => {
    expect(decideHealth(t0, false, policy, at(3_599_000)).disable).toBeUndefined();
    expect(decideHealth(t0, false, policy, at(3_600_000)).disable).toMatch(/failed for 3600 s/);
  });
});
