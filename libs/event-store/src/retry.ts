import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { ConcurrencyError } from './concurrency-error';

export interface RetryOptions {
  /** Attempts in all, the first included (default 5, the seed's bound for busy retries). */
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Which errors are worth another attempt (default: version conflicts and serialization failures). */
  retryOn?: (error: unknown) => boolean;
}

const isRetryable = (error: unknown) =>
  error instanceof ConcurrencyError ||
  ['40001', '40P01'].includes((error as { code?: string })?.code ?? '');

/**
 * Runs a command handler (read → decide → append) again when it loses an optimistic-concurrency
 * race, with exponential backoff and full jitter, at most `maxAttempts` times.
 */
export async function withRetry<T>(handler: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const { maxAttempts = 5, baseDelayMs = 5, maxDelayMs = 200, retryOn = isRetryable } = options;
  let lastError: unknown;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    try {
      return await handler(attempt);
    } catch (error) {
      lastError = error;
      if (!retryOn(error) || attempt === maxAttempts) break;
      const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
    }
  }
  if (retryOn(lastError)) {
    throw new HeadspaceError(ErrorCodes.retriesExhausted, `Gave up after ${maxAttempts} attempts: ${(lastError as Error).message}`, {
      cause: lastError,
      details: { attempts: maxAttempts, lastCode: (lastError as { code?: string }).code },
    });
  }
  throw lastError;
}
