import type { PoolClient } from 'pg';
import type { EventStore } from '../event-store';

/**
 * Runs `work` (read → fold → decide → append at the version read, all with `client`) in one short
 * write transaction that first takes a transaction-scoped advisory lock keyed by the stream. Every
 * writer of that stream that comes through here, on any replica, waits its turn instead of losing a
 * version race: independent commands on a shared stream never fail for arriving together, and a
 * retried command id finds its first result. Real conflicts are still decided (typed errors) from
 * the state read in turn.
 *
 * Lock order: this advisory lock first, then the stream rows the appends touch. Waiting for it
 * assigns no transaction id, so waiters do not hold the cluster-wide xid8 read fence; the holder
 * does until it commits, which the statement timeout bounds. Writers that skip the turn still race
 * optimistically (compare-and-set) and are retried.
 */
export function inStreamTurn<T>(store: EventStore, streamId: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return store.transaction(async (client) => {
    await client.query(`SET LOCAL statement_timeout = '5s'`);
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${store.schema}:${streamId}`]);
    return work(client);
  });
}
