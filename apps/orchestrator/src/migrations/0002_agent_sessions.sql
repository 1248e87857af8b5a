-- Agent sessions read model (agent-sessions projection): one row per session, what it is doing.
CREATE TABLE {{schema}}.agent_sessions (
  session_id          text PRIMARY KEY,
  team                text NOT NULL,
  persona             text NOT NULL,
  kind                text NOT NULL,
  run_id              text,
  task_id             text,
  model               text NOT NULL,
  simulated           boolean NOT NULL,
  status              text NOT NULL CHECK (status IN ('running', 'ended')),
  exit_reason         text,
  turns               integer NOT NULL DEFAULT 0,
  tool_calls          integer NOT NULL DEFAULT 0,
  input_tokens        bigint NOT NULL DEFAULT 0,
  output_tokens       bigint NOT NULL DEFAULT 0,
  cache_read_tokens   bigint NOT NULL DEFAULT 0,
  cache_write_tokens  bigint NOT NULL DEFAULT 0,
  last_activity       text,
  continues_session   text,
  started_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL,
  ended_at            timestamptz
);
CREATE INDEX agent_sessions_running ON {{schema}}.agent_sessions (started_at) WHERE status = 'running';
CREATE INDEX agent_sessions_by_run ON {{schema}}.agent_sessions (run_id, started_at);

-- Which orchestrator instance runs a session now. Not a projection (never rebuilt): a lease, taken
-- with a compare-and-set on expiry, so a session runs in exactly one instance and is re-leased when
-- that instance dies.
CREATE TABLE {{schema}}.session_leases (
  session_id   text PRIMARY KEY,
  owner        text NOT NULL,
  expires_at   timestamptz NOT NULL
);
