-- API tokens of the gateway: only the SHA-256 of each token is kept; the plaintext is shown once.
CREATE TABLE {{schema}}.api_tokens (
  id           uuid        PRIMARY KEY,
  name         text        NOT NULL,
  role         text        NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
  -- '*' or a JSON array of names.
  teams        jsonb       NOT NULL,
  projects     jsonb       NOT NULL,
  token_hash   bytea       NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  revoked_at   timestamptz,
  last_used_at timestamptz
);
