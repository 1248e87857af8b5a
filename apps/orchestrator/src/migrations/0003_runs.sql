-- Runs read model (runs projection): one row per run, the list and the view the API serves.
CREATE TABLE {{schema}}.runs (
  run_id      text PRIMARY KEY,
  team        text NOT NULL,
  title       text NOT NULL,
  mode        text NOT NULL,
  phase       text NOT NULL,
  verdict     text,
  started_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  ended_at    timestamptz
);
CREATE INDEX runs_active ON {{schema}}.runs (started_at) WHERE ended_at IS NULL;
CREATE INDEX runs_by_team ON {{schema}}.runs (team, started_at DESC);
