import { withRetry } from '@headspace/event-store';
import { ConcurrencyError } from '@headspace/event-store';
import type { Pool, PoolClient } from 'pg';

/** Lost races worth another attempt: version conflicts, serialization failures, deadlocks, a duplicate event id (a concurrent retry). */
const retryable = (error: unknown) =>
  error instanceof ConcurrencyError || ['40001', '40P01', '23505'].includes((error as { code?: string })?.code ?? '');

/** One short write transaction, retried whole when it loses a race; `afterCommit` runs only once it committed. */
export async function inTransaction<T>(pool: Pool, work: (tx: PoolClient, afterCommit: (fn: () => void) => void) => Promise<T>): Promise<T> {
  return withRetry(
    async () => {
      const client = await pool.connect();
      const hooks: Array<() => void> = [];
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await work(client, (fn) => hooks.push(fn));
        await client.query('COMMIT');
        for (const hook of hooks) hook();
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      } finally {
        client.release(broken);
      }
    },
    { maxAttempts: 8, retryOn: retryable },
  );
}
