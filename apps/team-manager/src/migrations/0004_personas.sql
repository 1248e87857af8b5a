-- Personas and pools read model (persona-board projection): the roster, pool membership in selection
-- order, every persona request (queued / granted / released) and the max-concurrency setting.
-- Written only by the persona-board processor; rebuilt from position 0 by truncating these tables.
CREATE TABLE {{schema}}.persona_roster (
  persona_id   text PRIMARY KEY,
  position     int NOT NULL,
  name         text NOT NULL,
  description  text NOT NULL,
  role_type    text NOT NULL,
  mode         text NOT NULL,
  pools        jsonb NOT NULL
);

-- Pools in definition order; `personas` is the member list in selection order.
CREATE TABLE {{schema}}.persona_pools (
  pool      text PRIMARY KEY,
  position  int NOT NULL,
  personas  jsonb NOT NULL
);

CREATE TABLE {{schema}}.persona_requests (
  request_id   text PRIMARY KEY,
  pool         text NOT NULL,
  task_id      text,
  agent_id     text,
  status       text NOT NULL CHECK (status IN ('queued', 'granted', 'released', 'cancelled')),
  persona_id   text,
  lease_id     text,
  -- global position of the event that created the request: the FIFO order of the queue.
  seq          bigint NOT NULL,
  updated_at   timestamptz NOT NULL
);
CREATE INDEX persona_requests_open ON {{schema}}.persona_requests (status, seq) WHERE status IN ('queued', 'granted');
CREATE UNIQUE INDEX persona_requests_lease ON {{schema}}.persona_requests (lease_id) WHERE lease_id IS NOT NULL;

CREATE TABLE {{schema}}.persona_settings (
  id                     int PRIMARY KEY CHECK (id = 1),
  max_concurrent_agents  int NOT NULL
);
