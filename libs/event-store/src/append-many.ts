import { ConcurrencyError } from './concurrency-error';
import { categoryOf } from './event-id';
import type { ExpectedVersion, NewEvent, StreamAppend, StreamCheck } from './types';

/**
 * Appends to several streams in ONE statement, all or nothing: each stream's compare-and-set, the
 * checks of streams read but not written, and every event insert in one data-modifying CTE.
 *
 * Every stream is written by one INSERT … ON CONFLICT DO UPDATE in stream-id order: a new stream is
 * inserted, an existing one is locked (so two such statements over overlapping streams queue
 * instead of deadlocking) and moved on only if its version is the expected one. Streams are only
 * ever reached through their primary key (the conflict arbiter, and a subquery per check), never
 * joined: jsonb_to_recordset is estimated at 100 rows whatever it holds, so a join lets the planner
 * hash it against a sequential scan of the whole streams table, whose cost grows with the table.
 *
 * A stream whose compare-and-set fails has no row in `s` (a wrong version, or a new stream that
 * exists) or a created one it must not have (an exact version of a stream that did not exist:
 * xmax = 0 only on a row this statement inserted), and a failed check nulls every row: the event
 * gets a NULL stream_version and the NOT NULL constraint aborts the whole statement — which is what
 * rolls back the other streams' writes without an explicit transaction (see isAppendManyConflict).
 * Parameters: $1 streams as a JSON array of {id, category, expected (null: must not exist), n};
 * $2 events as a JSON array of {stream, k (1-based position within the stream's n), id, type, sv, data, meta};
 * $3 checks as a JSON array of {id, expected (0: must not exist)}.
 */
export function appendManyStatement(q: string): string {
  return `
    WITH input AS (
      SELECT * FROM jsonb_to_recordset($1::jsonb) AS i (id text, category text, expected bigint, n bigint)
    ),
    checked AS (
      SELECT count(*) AS failed FROM jsonb_to_recordset($3::jsonb) AS c (id text, expected bigint)
       WHERE coalesce((SELECT st.version FROM ${q}.streams st WHERE st.stream_id = c.id), 0) <> c.expected
    ),
    s AS (
      INSERT INTO ${q}.streams AS st (stream_id, category, version)
      SELECT id, category, coalesce(expected, 0) + n FROM input ORDER BY id
      ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version, updated_at = now()
       WHERE st.version = (SELECT i.expected FROM input i WHERE i.id = EXCLUDED.stream_id)
      RETURNING st.stream_id, st.version, st.xmax = '0'::xid AS created
    )
    INSERT INTO ${q}.events (event_id, stream_id, stream_version, category, type, schema_version, data, metadata)
    SELECT coalesce(e.id, gen_random_uuid()), e.stream,
           CASE WHEN (SELECT failed FROM checked) = 0 AND NOT (s.created AND i.expected IS NOT NULL) THEN s.version - i.n + e.k END,
           i.category, e.type, e.sv, e.data, e.meta
      FROM ROWS FROM (jsonb_to_recordset($2::jsonb) AS (stream text, k bigint, id uuid, type text, sv integer, data jsonb, meta jsonb))
             WITH ORDINALITY AS e (stream, k, id, type, sv, data, meta, ord)
      JOIN input i ON i.id = e.stream
      LEFT JOIN s ON s.stream_id = e.stream
     ORDER BY e.ord
    RETURNING event_id, stream_id, stream_version, global_position, transaction_id::text AS tx_id`;
}

/** The error appendManyStatement raises when a compare-and-set or a check did not match. */
export function isAppendManyConflict(error: unknown): boolean {
  const pgError = error as { code?: string; column?: string };
  return pgError.code === '23502' && pgError.column === 'stream_version';
}

export interface PreparedEvent {
  eventId: string | null;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: unknown;
}

/** The statement's parameters for these appends and checks (entries on one stream chained, see EventStore.appendMany). */
export function appendManyParameters(
  appends: StreamAppend[],
  checks: StreamCheck[],
  prepare: (event: NewEvent, index: number, entry: StreamAppend) => PreparedEvent,
): { values: [string, string, string]; streamCount: number; eventCount: number; categories: Map<string, number> } {
  const streams = new Map<string, { id: string; category: string; expected: string | null; n: number; next: bigint }>();
  const events: Array<{ stream: string; k: number; id: string | null; type: string; sv: number; data: unknown; meta: unknown }> = [];
  const categories = new Map<string, number>();
  for (const entry of appends) {
    if (entry.events.length === 0) throw new Error(`appendMany: no events for ${entry.streamId}`);
    const expected = versionOf(entry.expected);
    let stream = streams.get(entry.streamId);
    if (!stream) {
      stream = { id: entry.streamId, category: categoryOf(entry.streamId), expected: expected === 0n ? null : expected.toString(), n: 0, next: expected };
      streams.set(entry.streamId, stream);
    } else if (stream.next !== expected) {
      throw new Error(`appendMany: ${entry.streamId} expects ${expected} after earlier entries that leave it at ${stream.next}`);
    }
    for (const [index, event] of entry.events.entries()) {
      const prepared = prepare(event, index, entry);
      events.push({ stream: entry.streamId, k: ++stream.n, id: prepared.eventId, type: prepared.type, sv: prepared.schemaVersion, data: prepared.data, meta: prepared.metadata });
    }
    stream.next += BigInt(entry.events.length);
    categories.set(stream.category, (categories.get(stream.category) ?? 0) + entry.events.length);
  }
  const checked = checks.map((c) => ({ id: c.streamId, expected: versionOf(c.expected).toString() }));
  const rows = [...streams.values()].map(({ id, category, expected, n }) => ({ id, category, expected, n }));
  return { values: [JSON.stringify(rows), JSON.stringify(events), JSON.stringify(checked)], streamCount: streams.size, eventCount: events.length, categories };
}

/** What each stream of the call was expected at: the first entry per stream, then the checks. */
export function expectations(appends: StreamAppend[], checks: StreamCheck[]): Map<string, ExpectedVersion> {
  const first = new Map<string, ExpectedVersion>();
  for (const a of [...appends, ...checks]) if (!first.has(a.streamId)) first.set(a.streamId, a.expected);
  return first;
}

/** The first stream whose actual version differs from the expected one, as a ConcurrencyError (none: undefined). */
export function firstConflict(expected: Map<string, ExpectedVersion>, actual: Map<string, bigint>): ConcurrencyError | undefined {
  for (const [id, want] of expected) {
    if ((actual.get(id) ?? 0n) !== versionOf(want)) return new ConcurrencyError(id, want, actual.get(id) ?? null);
  }
  return undefined;
}

function versionOf(expected: ExpectedVersion): bigint {
  const version = expected === 'no-stream' ? 0n : expected;
  if (typeof version !== 'bigint' || version < 0n) throw new Error(`appendMany supports exact versions and 'no-stream', got ${String(expected)}`);
  return version;
}
