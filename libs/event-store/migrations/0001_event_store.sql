-- The event store of one service. {{schema}} is the service's own PostgreSQL schema.

CREATE TABLE {{schema}}.streams (
  stream_id   text PRIMARY KEY,
  category    text NOT NULL,
  version     bigint NOT NULL CHECK (version >= 0),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
) WITH (fillfactor = 50);
-- Every append rewrites its stream's row: free space on each page keeps those updates HOT
-- (no index writes) and spreads hot streams over more pages.

CREATE TABLE {{schema}}.events (
  global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- The writing transaction's id: readers fence on it so that a transaction that commits late
  -- can never be skipped (ARCHITECTURE.md §2).
  transaction_id  xid8 NOT NULL DEFAULT pg_current_xact_id(),
  event_id        uuid NOT NULL,
  stream_id       text NOT NULL,
  stream_version  bigint NOT NULL CHECK (stream_version >= 1),
  category        text NOT NULL,
  type            text NOT NULL,
  schema_version  integer NOT NULL DEFAULT 1,
  data            jsonb NOT NULL,
  metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
  recorded_at     timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT events_event_id_unique UNIQUE (event_id),
  CONSTRAINT events_stream_version_unique UNIQUE (stream_id, stream_version)
);

CREATE INDEX events_log_order ON {{schema}}.events (transaction_id, global_position);

CREATE FUNCTION {{schema}}.refuse_event_mutation() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'events are append-only: % refused on %', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'HS403';
END $$;

CREATE TRIGGER events_append_only
  BEFORE UPDATE OR DELETE ON {{schema}}.events
  FOR EACH ROW EXECUTE FUNCTION {{schema}}.refuse_event_mutation();

CREATE TRIGGER events_no_truncate
  BEFORE TRUNCATE ON {{schema}}.events
  FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.refuse_event_mutation();

REVOKE UPDATE, DELETE, TRUNCATE ON {{schema}}.events FROM PUBLIC;

-- Processor positions (projections, relay) with the lease that keeps one instance active.
CREATE TABLE {{schema}}.checkpoints (
  processor        text PRIMARY KEY,
  transaction_id   xid8 NOT NULL DEFAULT '0'::xid8,
  global_position  bigint NOT NULL DEFAULT 0,
  lease_owner      text,
  lease_expires_at timestamptz,
  updated_at       timestamptz NOT NULL DEFAULT now()
);

-- Idempotency of consumers of other services' events: one row per handled event.
CREATE TABLE {{schema}}.inbox (
  consumer     text NOT NULL,
  event_id     uuid NOT NULL,
  handled_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);

-- Poison messages a consumer gave up on, with the error, so nothing is lost silently.
CREATE TABLE {{schema}}.dead_letters (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  consumer     text NOT NULL,
  event_id     text,
  subject      text NOT NULL,
  stream_seq   bigint,
  deliveries   integer NOT NULL,
  error        text NOT NULL,
  payload      text NOT NULL,
  headers      jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at   timestamptz NOT NULL DEFAULT now()
);
