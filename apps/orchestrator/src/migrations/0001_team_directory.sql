-- The orchestrator's directory of teams it can run work for, projected from team-manager events.
CREATE TABLE {{schema}}.team_directory (
  team_id          text PRIMARY KEY,
  name             text NOT NULL UNIQUE,
  lead_agent_type  text NOT NULL,
  created_at       timestamptz NOT NULL,
  source_event_id  uuid NOT NULL
);
