-- Webhook subscriptions (ADR 0027): the gateway's own state, kept here rather than in an event
-- stream; every change is also written to webhook_subscription_log (append-only, no secrets).
CREATE TABLE {{schema}}.webhook_subscriptions (
  id            text        PRIMARY KEY,
  url           text        NOT NULL,
  event_types   jsonb       NOT NULL,
  -- NULL = every team / project.
  teams         jsonb,
  projects      jsonb,
  -- AES-256-GCM under HS_WEBHOOK_SECRET_KEY, the subscription id as associated data.
  sealed_secret text        NOT NULL,
  description   text        NOT NULL DEFAULT '',
  enabled       boolean     NOT NULL DEFAULT true,
  disabled_reason text,
  -- Since when deliveries have failed without a success in between (HS_WEBHOOK_DISABLE_AFTER_MS).
  failing_since timestamptz,
  created_by    text        NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE {{schema}}.webhook_subscription_log (
  seq             bigserial   PRIMARY KEY,
  subscription_id text        NOT NULL,
  change          text        NOT NULL CHECK (change IN ('created', 'updated', 'enabled', 'disabled', 'auto-disabled', 'deleted', 'backfill-requested', 'redelivery-requested')),
  actor           text        NOT NULL,
  reason          text,
  details         jsonb       NOT NULL DEFAULT '{}',
  at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_subscription_log_by_subscription ON {{schema}}.webhook_subscription_log (subscription_id, seq);

-- One row per (subscription, event, origin): the consumers insert them in the same transaction as
-- their stream position; the sweeper sends them, per (subscription, stream) in stream_seq order.
CREATE TABLE {{schema}}.webhook_deliveries (
  seq             bigserial   NOT NULL,
  delivery_id     text        PRIMARY KEY,
  subscription_id text        NOT NULL REFERENCES {{schema}}.webhook_subscriptions (id) ON DELETE CASCADE,
  stream_key      text        NOT NULL,
  stream_seq      bigint      NOT NULL,
  event_id        text        NOT NULL,
  event_type      text        NOT NULL,
  -- 'live', 'backfill:<id>' or 'redelivery:<id>'.
  origin          text        NOT NULL,
  body            text        NOT NULL,
  state           text        NOT NULL CHECK (state IN ('pending', 'succeeded', 'failed')),
  attempts        integer     NOT NULL DEFAULT 0,
  response_status integer,
  last_error      text,
  scheduled_at    timestamptz NOT NULL,
  next_attempt_at timestamptz NOT NULL,
  first_attempt_at timestamptz,
  finished_at     timestamptz,
  UNIQUE (subscription_id, event_id, origin)
);
CREATE INDEX webhook_deliveries_queue ON {{schema}}.webhook_deliveries (subscription_id, stream_key, stream_seq, seq) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_log ON {{schema}}.webhook_deliveries (subscription_id, seq DESC);

CREATE TABLE {{schema}}.webhook_delivery_attempts (
  delivery_id     text        NOT NULL REFERENCES {{schema}}.webhook_deliveries (delivery_id) ON DELETE CASCADE,
  attempt         integer     NOT NULL,
  ok              boolean     NOT NULL,
  response_status integer,
  error           text,
  duration_ms     integer     NOT NULL,
  at              timestamptz NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);

-- The last JetStream sequence of each event stream whose matching deliveries are scheduled: advanced
-- in the transaction that inserts them, so a redelivered message is recognised and only acked.
CREATE TABLE {{schema}}.webhook_stream_positions (
  stream_key  text        PRIMARY KEY,
  stream_name text        NOT NULL,
  position    bigint      NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
