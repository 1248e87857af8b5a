-- Leon's notification deliveries that are due (ADR 0022). Not a read model: the delivery process's
-- own queue, written in the same transaction as each notification-delivery event it reflects (the
-- consumer's `scheduled`, the sweeper's `attempted`/`succeeded`/`failed`), so it never disagrees with
-- the log. The sweeper reads only the pending rows that have come due, through the partial index.
CREATE TABLE {{schema}}.notification_deliveries (
  delivery_id     text PRIMARY KEY,
  -- Scheduling order: one target's deliveries are sent in it.
  seq             bigserial NOT NULL,
  project         text NOT NULL,
  channel         text NOT NULL,
  target          text NOT NULL,
  group_id        text NOT NULL,
  to_state        text NOT NULL,
  state           text NOT NULL DEFAULT 'pending',
  attempts        integer NOT NULL DEFAULT 0,
  last_error      text,
  next_attempt_at timestamptz NOT NULL,
  scheduled_at    timestamptz NOT NULL
);
CREATE INDEX notification_deliveries_due ON {{schema}}.notification_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX notification_deliveries_project ON {{schema}}.notification_deliveries (project, scheduled_at DESC);
