-- Approvals queue read model (approvals projection): one row per approval, pending until decided.
CREATE TABLE {{schema}}.approvals (
  approval_id      text PRIMARY KEY,
  team             text NOT NULL,
  kind             text NOT NULL,
  requester        text NOT NULL,
  summary          text NOT NULL,
  payload          jsonb NOT NULL,
  default_answer   text NOT NULL,
  status           text NOT NULL CHECK (status IN ('pending', 'approved', 'denied')),
  decision         text,
  reason           text,
  decided_by       text,
  decision_source  text,
  requested_at     timestamptz NOT NULL,
  expires_at       timestamptz NOT NULL,
  decided_at       timestamptz,
  -- global position of the request: listing order.
  seq              bigint NOT NULL
);
CREATE INDEX approvals_by_team ON {{schema}}.approvals (team, status, kind, seq);
-- The timeout sweeper's scan.
CREATE INDEX approvals_pending_expiry ON {{schema}}.approvals (expires_at) WHERE status = 'pending';
