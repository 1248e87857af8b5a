import type { EventRow } from '../row-mapping';
import { EVENT_COLUMNS } from '../row-mapping';
import type { RecordedEvent } from '../types';

/** A place in log order: (transaction_id, global_position). */
export interface Position {
  transactionId: string;
  globalPosition: bigint;
}

export const positionOf = (event: RecordedEvent): Position => ({ transactionId: event.transactionId, globalPosition: event.globalPosition });
export const samePosition = (a: Position, b: Position) => a.transactionId === b.transactionId && a.globalPosition === b.globalPosition;

/** A row of the batch statement: an event, with the checkpoint and fence on the first. */
export type BatchRow = EventRow & { cp_tx: string | null; cp_pos: string | null; fence_tx: string | null; fenced: boolean | null };

/** A row of the idle peeks (idlePeekSql, typedPeekSql). */
export interface PeekRow {
  fence: string;
  pending: boolean | null;
  fenced: boolean | null;
  wanted?: boolean | null;
  seen: number;
  last_tx: string | null;
  last_pos: string | null;
}

/** SET clause moving a checkpoint row up to the position (tx, pos) given as parameters, never back. */
export const advanceCheckpoint = (tx: string, pos: string) =>
  `transaction_id = CASE WHEN (${tx}::xid8, ${pos}::bigint) > (transaction_id, global_position) THEN ${tx}::xid8 ELSE transaction_id END,
   global_position = CASE WHEN (${tx}::xid8, ${pos}::bigint) > (transaction_id, global_position) THEN ${pos}::bigint ELSE global_position END`;

/**
 * The newest event's transaction: compared with the fence, whether committed events wait behind
 * it. One backward step of the log-order index (an EXISTS on transaction_id >= fence is a
 * sequential scan of the whole log as a generic plan whenever the answer is no).
 */
const newestTransaction = (q: string) => `(SELECT fe.transaction_id FROM ${q}.events fe ORDER BY fe.transaction_id DESC, fe.global_position DESC LIMIT 1)`;

/**
 * The idle look of a processor with types ($1, $2: how far it has read; $3: its types; $4: page
 * size): the idle peek's fence and first event, plus, over the first $4 events below the fence,
 * whether any is of its types and where the page ends (both index-ordered reads from the position).
 */
export function typedPeekSql(q: string): string {
  // fenced: whether the newest event waits behind the fence, not the next one. A page skipped below
  // the fence can leave events of this processor's types behind it, whose append signals have been
  // spent: only a look soon (fencedBacklog) finds them before the idle interval ends.
  return `SELECT f.fence::text AS fence, n.tx < f.fence AS pending, ${newestTransaction(q)} >= f.fence AS fenced,
                 p.wanted, p.seen, p.last_tx, p.last_pos::text AS last_pos
            FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS fence) f
            LEFT JOIN LATERAL (
              SELECT transaction_id AS tx FROM ${q}.events
               WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint)
               ORDER BY transaction_id, global_position LIMIT 1) n ON true
            LEFT JOIN LATERAL (
              SELECT bool_or(page.type = ANY($3::text[])) AS wanted, count(*)::int AS seen,
                     (array_agg(page.transaction_id::text ORDER BY page.transaction_id DESC, page.global_position DESC))[1] AS last_tx,
                     (array_agg(page.global_position ORDER BY page.transaction_id DESC, page.global_position DESC))[1] AS last_pos
                FROM (SELECT type, transaction_id, global_position FROM ${q}.events
                       WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint) AND transaction_id < f.fence
                       ORDER BY transaction_id, global_position LIMIT $4) page) p ON true`;
}

/**
 * The batch statement ($1: processor, $2: instance, $3: batch size; $4, $5: how far this instance
 * has read): the checkpoint row (locked for a transactional batch; no row: the lease is not ours),
 * the fence, whether committed events wait behind it, and the next page of events below it. The
 * checkpoint's columns come on the first row only, so a large batch does not read them back once
 * per event.
 */
export function batchSql(q: string, locked: boolean): string {
  return `WITH cp AS (
            SELECT transaction_id, global_position, pg_snapshot_xmin(pg_current_snapshot()) AS fence
              FROM ${q}.checkpoints
             WHERE processor = $1 AND lease_owner = $2 AND lease_expires_at > now()
             ${locked ? 'FOR UPDATE' : ''})
          SELECT CASE WHEN e.n IS NULL OR e.n = 1 THEN cp.transaction_id::text END AS cp_tx,
                 CASE WHEN e.n IS NULL OR e.n = 1 THEN cp.global_position END AS cp_pos,
                 CASE WHEN e.n IS NULL OR e.n = 1 THEN cp.fence::text END AS fence_tx,
                 CASE WHEN e.n IS NULL OR e.n = 1 THEN ${newestTransaction(q)} >= cp.fence END AS fenced,
                 e.*
            FROM cp LEFT JOIN LATERAL (
              SELECT page.*, (row_number() OVER ())::int AS n FROM (
                SELECT ${EVENT_COLUMNS} FROM ${q}.events ev
                 -- From the later of the stored checkpoint and how far this instance has read, as ONE
                 -- row comparison, so the index scan starts there (with two, it starts at the first and
                 -- steps through every entry up to the second: every event a typed processor skipped).
                 WHERE (ev.transaction_id, ev.global_position) > (
                         CASE WHEN (cp.transaction_id, cp.global_position) > ($4::xid8, $5::bigint) THEN cp.transaction_id ELSE $4::xid8 END,
                         CASE WHEN (cp.transaction_id, cp.global_position) > ($4::xid8, $5::bigint) THEN cp.global_position ELSE $5::bigint END)
                   AND ev.transaction_id < cp.fence
                 ORDER BY ev.transaction_id, ev.global_position
                 LIMIT $3) page) e ON true`;
}

/**
 * The idle poll's one statement ($1, $2: the checkpoint): the fence, and whether the first event
 * after the checkpoint is due (`pending`) or waits behind the fence (`fenced`); both null when the
 * log holds nothing after it.
 */
export function idlePeekSql(q: string): string {
  return `SELECT f.fence::text AS fence, n.tx < f.fence AS pending, n.tx >= f.fence AS fenced
            FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS fence) f
            LEFT JOIN LATERAL (
              SELECT transaction_id AS tx FROM ${q}.events
               WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint)
               ORDER BY transaction_id, global_position LIMIT 1) n ON true`;
}

/**
 * A processor's backlog ($1: processor; $2: its types, null for all; $3: the most events looked at):
 * the events after its stored checkpoint it would handle. One range scan of the log-order index from
 * the checkpoint, at most $3 entries long, so a scrape costs the backlog (capped), never the log.
 */
export const lagSql = (q: string) =>
  `SELECT count(*) FILTER (WHERE $2::text[] IS NULL OR b.type = ANY($2::text[])) AS lag
     FROM ${q}.checkpoints c
     CROSS JOIN LATERAL (
       SELECT e.type FROM ${q}.events e
        WHERE (e.transaction_id, e.global_position) > (c.transaction_id, c.global_position)
        ORDER BY e.transaction_id, e.global_position
        LIMIT $3) b
    WHERE c.processor = $1`;
