-- Usage ledger read model (spend projection): one row per usage.recorded, every attribution key.
CREATE TABLE {{schema}}.usage_ledger (
  usage_id           text PRIMARY KEY,
  task_id            text,
  session_id         text NOT NULL,
  persona            text NOT NULL,
  team               text NOT NULL,
  project            text NOT NULL,
  surface            text NOT NULL,
  model              text NOT NULL,
  tier               text NOT NULL,
  service_tier       text NOT NULL,
  input_tokens       bigint NOT NULL,
  output_tokens      bigint NOT NULL,
  cache_write_5m     bigint NOT NULL,
  cache_write_1h     bigint NOT NULL,
  cache_read_tokens  bigint NOT NULL,
  thinking_tokens    bigint NOT NULL,
  cost_micros        bigint NOT NULL,
  price_version      integer NOT NULL,
  reservation_id     text,
  occurred_at        timestamptz NOT NULL,
  seq                bigint NOT NULL
);
CREATE INDEX usage_ledger_task ON {{schema}}.usage_ledger (task_id) WHERE task_id IS NOT NULL;
CREATE INDEX usage_ledger_team ON {{schema}}.usage_ledger (team, occurred_at);
CREATE INDEX usage_ledger_project ON {{schema}}.usage_ledger (project, occurred_at);
CREATE INDEX usage_ledger_session ON {{schema}}.usage_ledger (session_id);

-- Budgets read model (budgets projection): listing and the reservation sweeper's candidates.
CREATE TABLE {{schema}}.budgets (
  budget_id        text PRIMARY KEY,
  scope_kind       text NOT NULL,
  scope            jsonb NOT NULL,
  status           text NOT NULL,
  period           text NOT NULL,
  period_start     timestamptz NOT NULL,
  limit_micros     bigint,
  spent_micros     bigint NOT NULL DEFAULT 0,
  warned           boolean NOT NULL DEFAULT false,
  approval_id      text,
  updated_at       timestamptz NOT NULL
);

CREATE TABLE {{schema}}.reservations (
  budget_id        text NOT NULL,
  reservation_id   text NOT NULL,
  amount_micros    bigint NOT NULL,
  expires_at       timestamptz NOT NULL,
  PRIMARY KEY (budget_id, reservation_id)
);
CREATE INDEX reservations_expiry ON {{schema}}.reservations (expires_at);

-- The approval → budget link, read from the log itself by the approval consumer (no projection lag).
CREATE INDEX events_budget_approval ON {{schema}}.events ((data ->> 'approvalId')) WHERE type = 'budget.approval-requested';

-- Usage monitor (a process, not a projection: never rebuilt): per-agent cache counters and weekly quota consumption.
CREATE TABLE {{schema}}.cache_stats (
  team               text NOT NULL,
  persona            text NOT NULL,
  input_tokens       bigint NOT NULL DEFAULT 0,
  cache_write_tokens bigint NOT NULL DEFAULT 0,
  cache_read_tokens  bigint NOT NULL DEFAULT 0,
  alerting           boolean NOT NULL DEFAULT false,
  PRIMARY KEY (team, persona)
);

CREATE TABLE {{schema}}.quota_weeks (
  project         text NOT NULL,
  week_start      timestamptz NOT NULL,
  consumed_micros bigint NOT NULL DEFAULT 0,
  alerted         boolean NOT NULL DEFAULT false,
  PRIMARY KEY (project, week_start)
);

-- Latest SDKRateLimitInfo per project (rate-limit status events are the truth).
CREATE TABLE {{schema}}.rate_limits (
  project     text PRIMARY KEY,
  info        jsonb NOT NULL,
  reported_at timestamptz NOT NULL
);
