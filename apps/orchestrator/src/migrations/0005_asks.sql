-- Asks read model (asks projection): one row per ask, for the list, the sweep of running asks and
-- their cost; the full view is folded from the ask's own stream.
CREATE TABLE {{schema}}.asks (
  ask_id      text PRIMARY KEY,
  team        text NOT NULL,
  status      text NOT NULL,
  persona     text NOT NULL,
  model       text NOT NULL,
  cost_usd    text,
  started_at  timestamptz NOT NULL,
  ended_at    timestamptz
);
CREATE INDEX asks_running ON {{schema}}.asks (started_at) WHERE status = 'running';
CREATE INDEX asks_by_team ON {{schema}}.asks (team, started_at DESC, ask_id DESC);
