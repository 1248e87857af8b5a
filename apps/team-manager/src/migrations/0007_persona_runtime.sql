-- A persona's default runtime (built-in or claude-code); NULL: the built-in one.
ALTER TABLE {{schema}}.persona_roster ADD COLUMN runtime text;
