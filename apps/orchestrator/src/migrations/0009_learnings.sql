-- Learnings read model (learnings projection, ADR 0048): one row per learning with its current
-- confidence, and a tsvector kept by PostgreSQL itself for full-text ranking (ts_rank_cd). Without
-- pgvector on the server there is no embedding column; see ADR 0048 for the provider seam.
CREATE TABLE {{schema}}.learnings (
  learning_id  text PRIMARY KEY,
  team         text NOT NULL,
  project      text,
  persona      text,
  category     text NOT NULL,
  pattern      text NOT NULL,
  resolution   text NOT NULL,
  confidence   double precision NOT NULL,
  source       jsonb NOT NULL,
  uses         integer NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL,
  used_at      timestamptz,
  search       tsvector GENERATED ALWAYS AS (to_tsvector('english', pattern || ' ' || resolution)) STORED
);
CREATE INDEX learnings_search ON {{schema}}.learnings USING GIN (search);
CREATE INDEX learnings_by_team ON {{schema}}.learnings (team, confidence DESC, created_at DESC);
