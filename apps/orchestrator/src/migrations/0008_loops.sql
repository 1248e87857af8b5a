-- Loops read model (loops projection): one row per loop, for the list and the sweep of running
-- loops; the full view (iterations, checkpoints, checks) is folded from the loop's own stream.
CREATE TABLE {{schema}}.loops (
  loop_id     text PRIMARY KEY,
  team        text NOT NULL,
  status      text NOT NULL,
  stop_reason text,
  persona     text NOT NULL,
  model       text NOT NULL,
  iterations  integer NOT NULL,
  started_at  timestamptz NOT NULL,
  ended_at    timestamptz
);
CREATE INDEX loops_running ON {{schema}}.loops (started_at) WHERE status = 'running';
CREATE INDEX loops_by_team ON {{schema}}.loops (team, started_at DESC, loop_id DESC);
