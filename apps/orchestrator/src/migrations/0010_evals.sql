-- Eval runs read model (eval-runs projection): one row per eval run, for the list and the sweep of
-- running runs; the full view (tasks, grades) is folded from the run's own stream.
CREATE TABLE {{schema}}.eval_runs (
  eval_run_id  text PRIMARY KEY,
  team         text NOT NULL,
  status       text NOT NULL,
  suite        text NOT NULL,
  model        text,
  score        double precision,
  passed       integer NOT NULL DEFAULT 0,
  total        integer NOT NULL,
  started_at   timestamptz NOT NULL,
  ended_at     timestamptz
);
CREATE INDEX eval_runs_running ON {{schema}}.eval_runs (started_at) WHERE status = 'running';
CREATE INDEX eval_runs_by_team ON {{schema}}.eval_runs (team, started_at DESC, eval_run_id DESC);
