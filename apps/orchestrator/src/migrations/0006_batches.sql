-- Batches read model (batches projection): one row per Message Batch, for the list, the poll of
-- batches still submitting or in progress, and the claim check of an adopted provider batch; the
-- full view (items and results) is folded from the batch's own stream.
CREATE TABLE {{schema}}.batches (
  batch_id           text PRIMARY KEY,
  team               text NOT NULL,
  status             text NOT NULL,
  provider_batch_id  text UNIQUE,
  simulated          boolean NOT NULL,
  items              integer NOT NULL,
  cost_usd           text,
  submitted_at       timestamptz NOT NULL,
  ended_at           timestamptz
);
CREATE INDEX batches_active ON {{schema}}.batches (submitted_at) WHERE status IN ('submitting', 'in_progress');
CREATE INDEX batches_by_team ON {{schema}}.batches (team, submitted_at DESC, batch_id DESC);
