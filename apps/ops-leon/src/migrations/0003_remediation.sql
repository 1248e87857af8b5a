-- Remediation settings of a project (projects projection); events recorded before they existed get the defaults.
ALTER TABLE {{schema}}.projects
  ADD COLUMN team text,
  ADD COLUMN test_command text NOT NULL DEFAULT 'npm test',
  ADD COLUMN verify_window_seconds integer NOT NULL DEFAULT 3600;

-- Leon's remediation process (ADR 0024). Not a read model: the process manager's own state, one row
-- per group, written in the transaction of the consumer that handled an event (its inbox makes a
-- redelivery a no-op) or by the remediation worker after a step's effects (each with a command id
-- derived from step_id, so a step repeated after a crash asks and appends nothing twice).
CREATE TABLE {{schema}}.remediations (
  group_id          text PRIMARY KEY,
  project           text NOT NULL,
  -- What the worker does next (triage, ask-gavin, ask-robbo, start-fix, run-ended, verify);
  -- NULL while it waits on someone else (an approval, a run) or once it is done.
  step              text,
  -- The step's identity: command ids derive from it, and the worker finishes a step only if no one scheduled another meanwhile.
  step_id           text,
  step_input        jsonb NOT NULL DEFAULT '{}',
  due_at            timestamptz,
  attempts          integer NOT NULL DEFAULT 0,
  last_error        text,
  -- The group.triaged facts (severity, domain, persona, autoFixable, complex, hypothesis, approach).
  triage            jsonb NOT NULL DEFAULT '{}',
  approval_id       text UNIQUE,
  approval_decision text,
  run_seq           integer NOT NULL DEFAULT 0,
  run_id            text UNIQUE,
  regression_test   text,
  after_fix_ok      boolean,
  fix_release       text,
  committed_at      timestamptz,
  window_seconds    integer,
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX remediations_due ON {{schema}}.remediations (due_at) WHERE step IS NOT NULL;
