-- Team roster projection (teams/roster/team-roster.projection.ts): teams with their status and
-- shutdown protocol, their members (lead and teammates), and completion announcements to the lead.
-- Every row derives from event data only (no now()), so a rebuild from position 0 equals the live rows.
CREATE TABLE {{schema}}.team_roster_teams (
  team_name          text PRIMARY KEY,
  team_id            text NOT NULL,
  description        text,
  lead_agent_type    text NOT NULL,
  metadata           jsonb NOT NULL,
  sandbox            jsonb NOT NULL,
  default_model      text,
  max_spawn_depth    int,
  status             text NOT NULL,
  shutdown           jsonb,
  shutdown_deadline  timestamptz,
  created_at         timestamptz NOT NULL
);
-- The shutdown-timeout sweeper's lookup.
CREATE INDEX team_roster_teams_shutdown_due ON {{schema}}.team_roster_teams (shutdown_deadline) WHERE status = 'shutting-down';

CREATE TABLE {{schema}}.team_roster (
  team_name    text NOT NULL,
  member_name  text NOT NULL,
  role         text NOT NULL,
  member_id    text,
  agent_id     text,
  agent_type   text NOT NULL,
  model        text,
  status       text NOT NULL,
  session_key  text UNIQUE,
  lane         text,
  depth        int NOT NULL,
  parent       text,
  task         text,
  sandbox      jsonb,
  position     bigint NOT NULL,
  PRIMARY KEY (team_name, member_name)
);

CREATE TABLE {{schema}}.team_announcements (
  announcement_id  text PRIMARY KEY,
  team_name        text NOT NULL,
  from_member      text NOT NULL,
  to_member        text NOT NULL,
  outcome          text NOT NULL,
  summary          text NOT NULL,
  result           text,
  announced_at     timestamptz NOT NULL,
  position         bigint NOT NULL
);
CREATE INDEX team_announcements_by_team ON {{schema}}.team_announcements (team_name, position);
