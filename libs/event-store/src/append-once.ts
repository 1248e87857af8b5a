import type { CommandContext } from './command-handler/command-context';
import type { EventMetadata } from '@headspace/contracts';
import type { NewEvent } from './types';

/** One command's events on one stream, as a part of EventStore.appendOnce: appended at whatever version the stream is at. */
export interface OnceAppend {
  streamId: string;
  events: NewEvent[];
  /** Required: the events' ids derive from it, and an id already recorded makes the entry a replay. */
  commandId: string;
  metadata?: EventMetadata;
  context?: CommandContext;
}

/**
 * Appends many commands' events (expected version 'any') in ONE statement, each command at most once.
 *
 * `recorded` looks every event id up through the unique index (a LATERAL subquery per id that
 * OFFSET 0 keeps from being flattened: flattened, jsonb_to_recordset's fixed estimate of 100 rows
 * lets the planner hash the input against a scan of the whole events table); the ids not found are the
 * `fresh` events, numbered within their stream. Each stream is then bumped by its count of fresh
 * events with one INSERT … ON CONFLICT DO UPDATE in stream-id order (a new stream inserted, an
 * existing one locked, so concurrent statements over the same streams queue instead of
 * deadlocking), and the fresh events take the versions below the new one. The statement returns the
 * rows it inserted and the rows of ids it found recorded (replayed = true).
 *
 * An id committed by another transaction after this statement's snapshot is not in `recorded` and
 * fails the insert with the unique violation (23505): the caller runs the statement again, and the
 * new snapshot finds it recorded.
 * Parameter: $1 events as a JSON array of {stream, category, id, type, sv, data, meta}, in order.
 */
export function appendOnceStatement(q: string): string {
  return `
    WITH input AS (
      SELECT * FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (stream text, category text, id uuid, type text, sv integer, data jsonb, meta jsonb))
             WITH ORDINALITY AS i (stream, category, id, type, sv, data, meta, ord)
    ),
    recorded AS (
      SELECT i.ord, x.event_id, x.stream_version, x.global_position, x.transaction_id
        FROM input i
        CROSS JOIN LATERAL (SELECT e.event_id, e.stream_version, e.global_position, e.transaction_id FROM ${q}.events e WHERE e.event_id = i.id OFFSET 0) x
    ),
    fresh AS (
      SELECT i.*, row_number() OVER (PARTITION BY i.stream ORDER BY i.ord) AS k
        FROM input i WHERE i.ord NOT IN (SELECT ord FROM recorded)
    ),
    counts AS (
      SELECT stream, min(category) AS category, count(*) AS n FROM fresh GROUP BY stream
    ),
    s AS (
      INSERT INTO ${q}.streams AS st (stream_id, category, version)
      SELECT stream, category, n FROM counts ORDER BY stream
      ON CONFLICT (stream_id) DO UPDATE SET version = st.version + EXCLUDED.version, updated_at = now()
      RETURNING st.stream_id, st.version
    ),
    inserted AS (
      INSERT INTO ${q}.events (event_id, stream_id, stream_version, category, type, schema_version, data, metadata)
      SELECT f.id, f.stream, s.version - c.n + f.k, f.category, f.type, f.sv, f.data, f.meta
        FROM fresh f JOIN counts c ON c.stream = f.stream JOIN s ON s.stream_id = f.stream
       ORDER BY f.ord
      RETURNING event_id, stream_version, global_position, transaction_id
    )
    SELECT event_id, stream_version, global_position, transaction_id::text AS tx_id, false AS replayed FROM inserted
    UNION ALL
    SELECT event_id, stream_version, global_position, transaction_id::text, true FROM recorded`;
}

/** A concurrent transaction recorded one of the ids first, or two statements deadlocked: the statement can simply run again. */
export function isAppendOnceRace(error: unknown): boolean {
  const pgError = error as { code?: string; constraint?: string };
  return (pgError.code === '23505' && pgError.constraint === 'events_event_id_unique') || pgError.code === '40P01';
}
