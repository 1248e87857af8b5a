-- Workflows read model (workflows projection): one row per workflow, for the list and the sweep of
-- running workflows; steps, outputs and timings are folded from the workflow's own stream.
CREATE TABLE {{schema}}.workflows (
  workflow_id  text PRIMARY KEY,
  team         text NOT NULL,
  name         text NOT NULL,
  mode         text NOT NULL,
  status       text NOT NULL,
  simulated    boolean NOT NULL,
  steps        integer NOT NULL,
  started_at   timestamptz NOT NULL,
  ended_at     timestamptz
);
CREATE INDEX workflows_running ON {{schema}}.workflows (started_at) WHERE status = 'running';
CREATE INDEX workflows_by_team ON {{schema}}.workflows (team, started_at DESC, workflow_id DESC);
