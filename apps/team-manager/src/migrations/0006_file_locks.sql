-- Who holds which workspace file (projection of filelock.* events).
CREATE TABLE {{schema}}.file_locks (
  team        text NOT NULL,
  path        text NOT NULL,
  holder      text NOT NULL,
  since       timestamptz NOT NULL,
  touched_at  timestamptz NOT NULL,
  PRIMARY KEY (team, path)
);
CREATE INDEX file_locks_by_holder ON {{schema}}.file_locks (team, holder);
