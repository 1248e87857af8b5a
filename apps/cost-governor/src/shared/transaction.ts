import { ConcurrencyError, withRetry, type EventStore } from '@headspace/event-store';
import type { PoolClient } from 'pg';

/** Lost races worth another attempt: version conflicts, serialization failures, deadlocks, a duplicate event id (a concurrent retry). */
const retryable = (error: unknown) =>
  error instanceof ConcurrencyError || ['40001', '40P01', '23505'].includes((error as { code?: string })?.code ?? '');

/** One short write transaction (`EventStore.transaction`: its appends wake processors at commit), retried whole when it loses a race. */
export function inTransaction<T>(store: EventStore, work: (tx: PoolClient) => Promise<T>): Promise<T> {
  return withRetry(() => store.transaction(work), { maxAttempts: 8, retryOn: retryable });
}
