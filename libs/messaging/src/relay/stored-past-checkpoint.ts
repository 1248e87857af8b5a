import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager, type StoredMsg } from '@nats-io/jetstream';
import type { Pool } from 'pg';
import { HsHeaders } from '../headers/hs-headers';

export interface StoredPastCheckpointOptions {
  pool: Pool;
  /** Quoted schema of the events and checkpoints tables. */
  q: string;
  processor: string;
  jsm: JetStreamManager;
  stream: string;
  /**
   * How far before the first unrelayed event's recorded_at the walk may look (clock skew between
   * PostgreSQL and the NATS server). Default 60 s.
   */
  clockSkewMs?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FIRST_PAGE = 64;
const MAX_PAGE = 512;

const eventIdOf = (msg: StoredMsg): string | undefined => {
  for (const key of ['Nats-Msg-Id', HsHeaders.eventId]) {
    const value = msg.header?.has(key) ? msg.header.get(key) : '';
    if (UUID.test(value)) return value;
  }
  return undefined;
};

/**
 * The ids of this log's events past the relay's stored checkpoint that the stream already holds:
 * what the relay published before a crash (or before another instance took the lease) but had not
 * checkpointed yet. The relay skips them instead of publishing them again, so a restart after the
 * stream's duplicate window stores no event twice.
 *
 * Walks the stream back from its last message, a page at a time, and asks the events table which
 * of the messages' ids (`Nats-Msg-Id`, always the event id) are this log's and past the checkpoint
 * — so messages without Hs-* headers and other publishers' messages on the same stream are told
 * apart by the database, not by headers. It stops at the first page holding one of this log's
 * events at or before the checkpoint (the relay publishes in log order and never again below a
 * stored checkpoint, so nothing of it past the checkpoint lies further back), at the stream's
 * start, or at messages stored before the first unrelayed event was recorded (less the skew).
 * Returning an event the stream holds is always safe; the stop rules make the set complete.
 */
export async function storedPastCheckpoint(options: StoredPastCheckpointOptions): Promise<Set<string>> {
  const { pool, q, processor, jsm, stream } = options;
  const found = new Set<string>();
  const { rows: cps } = await pool.query<{ tx: string; pos: string }>(
    `SELECT transaction_id::text AS tx, global_position::text AS pos FROM ${q}.checkpoints WHERE processor = $1`,
    [processor],
  );
  const cp = cps[0] ?? { tx: '0', pos: '0' };
  const { rows: next } = await pool.query<{ recorded_at: Date }>(
    `SELECT recorded_at FROM ${q}.events WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint)
      ORDER BY transaction_id, global_position LIMIT 1`,
    [cp.tx, cp.pos],
  );
  if (next.length === 0) return found; // nothing past the checkpoint: nothing to republish
  const notBefore = next[0].recorded_at.getTime() - (options.clockSkewMs ?? 60_000);

  let state;
  try {
    state = (await jsm.streams.info(stream)).state;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound) return found;
    throw error;
  }
  let high = state.last_seq;
  let page = FIRST_PAGE;
  while (state.messages > 0 && high >= state.first_seq) {
    const low = Math.max(state.first_seq, high - page + 1);
    const seqs = Array.from({ length: high - low + 1 }, (_, i) => low + i);
    const messages = (await Promise.all(seqs.map((seq) => jsm.streams.getMessage(stream, { seq })))).filter((m): m is StoredMsg => m !== null);
    const ids = [...new Set(messages.map(eventIdOf).filter((id): id is string => id !== undefined))];
    const { rows } = await pool.query<{ id: string; past: boolean }>(
      `SELECT event_id::text AS id, (transaction_id, global_position) > ($2::xid8, $3::bigint) AS past
         FROM ${q}.events WHERE event_id = ANY($1::uuid[])`,
      [ids, cp.tx, cp.pos],
    );
    for (const row of rows) if (row.past) found.add(row.id);
    const reachedCheckpoint = rows.some((row) => !row.past);
    const reachedTime = messages.some((m) => m.time.getTime() < notBefore);
    if (reachedCheckpoint || reachedTime) break;
    high = low - 1;
    page = Math.min(page * 2, MAX_PAGE);
  }
  return found;
}
