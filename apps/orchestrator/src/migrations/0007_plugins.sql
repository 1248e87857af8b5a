-- Plugins read model (plugins projection): one row per plugin installed in a team, with the
-- installed copy's directory and its parts, for the list and for what sessions of the team load
-- (only enabled rows). A removed plugin's row is deleted; its stream keeps the history.
CREATE TABLE {{schema}}.plugins (
  team           text NOT NULL,
  plugin         text NOT NULL,
  version        text NOT NULL,
  description    text,
  source         text NOT NULL,
  commit         text,
  content_hash   text NOT NULL,
  dir            text NOT NULL,
  parts          jsonb NOT NULL,
  enabled        boolean NOT NULL,
  installed_at   timestamptz NOT NULL,
  PRIMARY KEY (team, plugin)
);
CREATE INDEX plugins_enabled ON {{schema}}.plugins (team) WHERE enabled;
