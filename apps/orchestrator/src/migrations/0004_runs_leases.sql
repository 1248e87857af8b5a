-- Runs whose sessions still hold pool personas are swept too (active ones, and ended ones that
-- have not released every persona yet); lists page newest first by (started_at, run_id).
ALTER TABLE {{schema}}.runs ADD COLUMN leases_held integer NOT NULL DEFAULT 0;
DROP INDEX {{schema}}.runs_active;
CREATE INDEX runs_to_sweep ON {{schema}}.runs (started_at) WHERE ended_at IS NULL OR leases_held > 0;
DROP INDEX {{schema}}.runs_by_team;
CREATE INDEX runs_by_team ON {{schema}}.runs (team, started_at DESC, run_id DESC);
CREATE INDEX runs_newest ON {{schema}}.runs (started_at DESC, run_id DESC);
