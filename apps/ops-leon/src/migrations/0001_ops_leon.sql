-- Leon's read models. Decisions never read them: they decide on the streams.

-- Projects (projects projection): settings and the numeric DSN id.
CREATE TABLE {{schema}}.projects (
  project        text PRIMARY KEY,
  project_id     text NOT NULL UNIQUE,
  display_name   text NOT NULL,
  repository     text NOT NULL,
  trusted        boolean NOT NULL,
  environments   jsonb NOT NULL,
  active_keys    integer NOT NULL DEFAULT 0,
  created_by     text NOT NULL,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);

-- Ingest keys (projects projection): never the key nor its hash, only what tells keys apart.
CREATE TABLE {{schema}}.ingest_keys (
  key_id      text PRIMARY KEY,
  project     text NOT NULL,
  hint        text NOT NULL,
  label       text NOT NULL,
  created_by  text NOT NULL,
  created_at  timestamptz NOT NULL,
  revoked_at  timestamptz
);
CREATE INDEX ingest_keys_project ON {{schema}}.ingest_keys (project, created_at);

-- Exception groups (groups projection): counts and spread from exception.received, state from the lifecycle.
CREATE TABLE {{schema}}.exception_groups (
  group_id      text PRIMARY KEY,
  project       text NOT NULL,
  project_id    text NOT NULL,
  fingerprint   text NOT NULL,
  state         text NOT NULL DEFAULT 'NEW',
  type          text NOT NULL,
  title         text NOT NULL,
  culprit       text NOT NULL DEFAULT '',
  level         text NOT NULL,
  severity      text,
  domain        text,
  persona       text,
  auto_fixable  boolean,
  count         bigint NOT NULL DEFAULT 0,
  first_seen    timestamptz NOT NULL,
  last_seen     timestamptz NOT NULL,
  releases      text[] NOT NULL DEFAULT '{}',
  environments  text[] NOT NULL DEFAULT '{}',
  spiked_at     timestamptz,
  updated_at    timestamptz NOT NULL
);
CREATE INDEX exception_groups_last_seen ON {{schema}}.exception_groups (last_seen DESC, group_id DESC);
CREATE INDEX exception_groups_project_last_seen ON {{schema}}.exception_groups (project, last_seen DESC, group_id DESC);
CREATE INDEX exception_groups_count ON {{schema}}.exception_groups (count DESC, group_id DESC);
CREATE INDEX exception_groups_first_seen ON {{schema}}.exception_groups (first_seen DESC, group_id DESC);
CREATE INDEX exception_groups_state ON {{schema}}.exception_groups (state, last_seen DESC);

-- The latest events of each group (HS_OPS_SAMPLE_EVENTS), by log position.
CREATE TABLE {{schema}}.exception_samples (
  group_id     text NOT NULL,
  event_id     text NOT NULL,
  seq          bigint NOT NULL,
  received_at  timestamptz NOT NULL,
  report       jsonb NOT NULL,
  PRIMARY KEY (group_id, event_id)
);
CREATE INDEX exception_samples_latest ON {{schema}}.exception_samples (group_id, seq DESC);

-- Each group's timeline: opened, every transition, spikes.
CREATE TABLE {{schema}}.group_transitions (
  group_id    text NOT NULL,
  seq         bigint NOT NULL,
  type        text NOT NULL,
  from_state  text,
  to_state    text NOT NULL,
  actor       text NOT NULL,
  reason      text,
  details     jsonb NOT NULL,
  at          timestamptz NOT NULL,
  PRIMARY KEY (group_id, seq)
);
