-- Task board: the read model of every team's task list (written only by the task-board processor).
CREATE TABLE {{schema}}.task_board (
  team             text        NOT NULL,
  task_id          text        NOT NULL,
  subject          text        NOT NULL,
  description      text        NOT NULL,
  active_form      text,
  status           text        NOT NULL CHECK (status IN ('pending', 'claimed', 'completed', 'escalated')),
  owner            text,
  depends_on       text[]      NOT NULL DEFAULT '{}',
  -- Computed: the dependencies not completed yet (shrinks as they complete).
  blocked_by       text[]      NOT NULL DEFAULT '{}',
  metadata         jsonb       NOT NULL DEFAULT '{}',
  -- Files or globs the task owns (seed 003 Req 6.3).
  files            text[]      NOT NULL DEFAULT '{}',
  -- Failed attempts, oldest first: [{attempt, owner, reason, at}].
  failed_approaches jsonb      NOT NULL DEFAULT '[]',
  attempts         integer     NOT NULL DEFAULT 0,
  max_attempts     integer     NOT NULL,
  lease_expires_at timestamptz,
  created_at       timestamptz NOT NULL,
  claimed_at       timestamptz,
  completed_at     timestamptz,
  stream_version   bigint      NOT NULL,
  PRIMARY KEY (team, task_id)
);
CREATE INDEX task_board_status ON {{schema}}.task_board (team, status);
CREATE INDEX task_board_owner ON {{schema}}.task_board (team, owner) WHERE owner IS NOT NULL;
-- Queries by metadata use containment (metadata @> '{"k": "v"}').
CREATE INDEX task_board_metadata ON {{schema}}.task_board USING gin (metadata jsonb_path_ops);
-- The lease sweeper looks for claims whose lease has run out.
CREATE INDEX task_board_leases ON {{schema}}.task_board (lease_expires_at) WHERE status = 'claimed';
CREATE INDEX task_board_files ON {{schema}}.task_board USING gin (files);
