import { JetStreamApiError } from '@nats-io/jetstream';
import { NoRespondersError, RequestError, TimeoutError } from '@nats-io/nats-core';

/** JetStream's "system temporarily unavailable" (a cluster electing its meta leader). */
const JS_TEMPORARILY_UNAVAILABLE = 10008;

/**
 * Whether a JetStream API call failed for a moment rather than for good: a timeout, no responder
 * (JetStream not up yet, a node restarting), or the cluster's meta leader being elected. A service
 * starting while NATS does sees these; they must not end the process.
 */
export function isTransientJetStreamError(error: unknown): boolean {
  if (error instanceof TimeoutError || error instanceof NoRespondersError) return true;
  if (error instanceof RequestError) return error.isNoResponders() || error.cause instanceof TimeoutError;
  return error instanceof JetStreamApiError && error.code === JS_TEMPORARILY_UNAVAILABLE;
}

export interface TransientRetry {
  /** Give up (throw the last error) once this much time has passed. */
  deadlineMs?: number;
  sleep?: (ms: number) => Promise<void>;
  onRetry?: (error: unknown, attempt: number) => void;
}

/** Runs `fn` again after transient JetStream errors, backing off 250 ms → 4 s, until the deadline. */
export async function retryTransient<T>(fn: () => Promise<T>, opts: TransientRetry = {}): Promise<T> {
  const deadline = Date.now() + (opts.deadlineMs ?? 60_000);
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isTransientJetStreamError(error) || Date.now() >= deadline) throw error;
      opts.onRetry?.(error, attempt);
      await sleep(Math.min(4_000, 250 * 2 ** (attempt - 1)));
    }
  }
}
