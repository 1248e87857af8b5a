/** The delivery policy (HS_WEBHOOK_*): pure, time comes in with each call. */
export interface DeliveryPolicy {
  backoffMs: number;
  backoffMaxMs: number;
  /** Retried until this long after the first attempt, then given up. */
  retryForMs: number;
  /** A subscription failing (no success in between) for this long is disabled. */
  disableAfterMs: number;
}

export interface AttemptOutcome {
  ok: boolean;
  responseStatus?: number;
  /** A status line or transport error; never the receiver's body. */
  error?: string;
}

export interface PendingDelivery {
  attempts: number;
  firstAttemptAt: string | null;
}

export type DeliveryAfterAttempt =
  | { state: 'succeeded'; attempts: number; firstAttemptAt: string; finishedAt: string }
  | { state: 'pending'; attempts: number; firstAttemptAt: string; nextAttemptAt: string; lastError: string }
  | { state: 'failed'; attempts: number; firstAttemptAt: string; finishedAt: string; lastError: string };

/** The n-th failure waits backoffMs·2^(n-1), at most backoffMaxMs. */
export const retryDelayMs = (failures: number, policy: Pick<DeliveryPolicy, 'backoffMs' | 'backoffMaxMs'>) =>
  Math.min(policy.backoffMaxMs, policy.backoffMs * 2 ** Math.min(52, Math.max(0, failures - 1)));

const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/** What one attempt makes of a delivery: delivered, retried after the backoff, or given up past the retry window. */
export function decideAttempt(delivery: PendingDelivery, outcome: AttemptOutcome, policy: DeliveryPolicy, now: string): DeliveryAfterAttempt {
  const attempts = delivery.attempts + 1;
  const firstAttemptAt = delivery.firstAttemptAt ?? now;
  if (outcome.ok) return { state: 'succeeded', attempts, firstAttemptAt, finishedAt: now };
  const lastError = (outcome.error ?? (outcome.responseStatus ? `HTTP ${outcome.responseStatus}` : 'failed')).slice(0, 500);
  const nextAttemptAt = plus(now, retryDelayMs(attempts, policy));
  if (Date.parse(nextAttemptAt) > Date.parse(firstAttemptAt) + policy.retryForMs) return { state: 'failed', attempts, firstAttemptAt, finishedAt: now, lastError };
  return { state: 'pending', attempts, firstAttemptAt, nextAttemptAt, lastError };
}

export type SubscriptionHealth = { failingSince: string | null; disable?: string };

/** A success clears the failing streak; a failure starts it, and one older than disableAfterMs disables the subscription. */
export function decideHealth(failingSince: string | null, ok: boolean, policy: Pick<DeliveryPolicy, 'disableAfterMs'>, now: string): SubscriptionHealth {
  if (ok) return { failingSince: null };
  const since = failingSince ?? now;
  const failingMs = Date.parse(now) - Date.parse(since);
  if (failingMs >= policy.disableAfterMs) {
    return { failingSince: since, disable: `deliveries failed for ${Math.round(failingMs / 1_000)} s without a success (HS_WEBHOOK_DISABLE_AFTER_MS ${policy.disableAfterMs})` };
  }
  return { failingSince: since };
}
