/**
 * Append is one statement, one round trip: the stream's compare-and-set and the event insert in a
 * data-modifying CTE. When the compare-and-set matches no row, nothing is inserted and the caller
 * sees zero rows: a wrong expected version (or a replayed command, told apart afterwards).
 * Parameters: $1 stream id, $2 category, $3 event count, $4 events as a JSON array of
 * {id, type, sv, data, meta} (a null id gets a server-generated one), $5 expected version (exact only).
 */
export type CasKind = 'any' | 'no-stream' | 'stream-exists' | 'exact';

const compareAndSet = (q: string): Record<CasKind, string> => ({
  any: `INSERT INTO ${q}.streams AS s (stream_id, category, version) VALUES ($1, $2, $3::bigint)
          ON CONFLICT (stream_id) DO UPDATE SET version = s.version + $3::bigint, updated_at = now()
          RETURNING s.version`,
  'no-stream': `INSERT INTO ${q}.streams (stream_id, category, version) VALUES ($1, $2, $3::bigint)
          ON CONFLICT (stream_id) DO NOTHING RETURNING version`,
  'stream-exists': `UPDATE ${q}.streams s SET version = s.version + $3::bigint, updated_at = now()
          WHERE s.stream_id = $1 RETURNING s.version`,
  exact: `UPDATE ${q}.streams s SET version = s.version + $3::bigint, updated_at = now()
          WHERE s.stream_id = $1 AND s.version = $5::bigint RETURNING s.version`,
});

export function appendStatements(q: string): Record<CasKind, string> {
  const cas = compareAndSet(q);
  const statement = (kind: CasKind) => `
    WITH s AS (${cas[kind]}),
    inserted AS (
      INSERT INTO ${q}.events (event_id, stream_id, stream_version, category, type, schema_version, data, metadata)
      SELECT coalesce(u.id, gen_random_uuid()), $1, s.version - $3::bigint + u.ord, $2, u.type, u.sv, u.data, u.meta
        FROM s, ROWS FROM (jsonb_to_recordset($4::jsonb) AS (id uuid, type text, sv integer, data jsonb, meta jsonb))
                WITH ORDINALITY AS u (id, type, sv, data, meta, ord)
      RETURNING event_id, stream_version, global_position, transaction_id::text AS tx_id)
    SELECT event_id, stream_version, global_position, tx_id FROM inserted ORDER BY global_position`;
  return { any: statement('any'), 'no-stream': statement('no-stream'), 'stream-exists': statement('stream-exists'), exact: statement('exact') };
}

/**
 * The same for exactly one event, with the event as plain parameters: most commands append one
 * event, and skipping the JSON array and jsonb_to_recordset is worth ~10% of a single append.
 * Parameters: $1 stream id, $2 category, $3 = 1, $4 event id (null for a generated one), $5 type,
 * $6 schema version, $7 data, $8 metadata, $9 expected version (exact only).
 */
export function appendOneStatements(q: string): Record<CasKind, string> {
  const cas = compareAndSet(q);
  const statement = (kind: CasKind) => `
    WITH s AS (${cas[kind].replaceAll('$5::bigint', '$9::bigint')})
    INSERT INTO ${q}.events (event_id, stream_id, stream_version, category, type, schema_version, data, metadata)
    SELECT coalesce($4::uuid, gen_random_uuid()), $1, s.version, $2, $5, $6::integer, $7::jsonb, $8::jsonb FROM s
    RETURNING event_id, stream_version, global_position, transaction_id::text AS tx_id`;
  return { any: statement('any'), 'no-stream': statement('no-stream'), 'stream-exists': statement('stream-exists'), exact: statement('exact') };
}
