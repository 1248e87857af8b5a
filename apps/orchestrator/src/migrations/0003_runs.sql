-- Runs read model (runs projection): one row per run, the list the API serves and the runs the
-- process sweeps (active ones, and ended ones whose sessions still hold pool personas).
CREATE TABLE {{schema}}.runs (
  run_id       text PRIMARY KEY,
  team         text NOT NULL,
  title        text NOT NULL,
  mode         text NOT NULL,
  phase        text NOT NULL,
  verdict      text,
  leases_held  integer NOT NULL DEFAULT 0,
  started_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  ended_at     timestamptz
);
CREATE INDEX runs_to_sweep ON {{schema}}.runs (started_at) WHERE ended_at IS NULL OR leases_held > 0;
-- Newest first, keyset-paged by (started_at, run_id).
CREATE INDEX runs_by_team ON {{schema}}.runs (team, started_at DESC, run_id DESC);
CREATE INDEX runs_newest ON {{schema}}.runs (started_at DESC, run_id DESC);
