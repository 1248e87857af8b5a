import type { Pool } from 'pg';

/**
 * Resolves once a processor's checkpoint is past every event committed before the call. Polls the
 * checkpoint (bounded by timeoutMs) instead of trusting "two idle polls": the xmin fence is
 * cluster-wide, so an idle poll can happen while another database's transaction still hides
 * events that were committed before the call.
 */
export async function waitForCheckpoint(pool: Pool, q: string, processor: string, timeoutMs = 30_000, intervalMs = 10): Promise<void> {
  const { rows } = await pool.query<{ horizon: string }>(`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS horizon`);
  const horizon = rows[0].horizon;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Behind while the first event after the checkpoint (in log order, one index probe) was
    // committed before the call: later events have larger transaction ids, so it alone decides.
    const { rows: behind } = await pool.query<{ behind: boolean }>(
      `SELECT c.processor IS NULL OR coalesce(n.tx < $2::xid8, false) AS behind
         FROM (SELECT 1) one
         LEFT JOIN ${q}.checkpoints c ON c.processor = $1
         LEFT JOIN LATERAL (
           SELECT e.transaction_id AS tx FROM ${q}.events e
            WHERE (e.transaction_id, e.global_position) > (c.transaction_id, c.global_position)
            ORDER BY e.transaction_id, e.global_position LIMIT 1) n ON true`,
      [processor, horizon],
    );
    if (!behind[0].behind) return;
    if (Date.now() > deadline) throw new Error(`${processor} did not pass the events committed before the wait within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
