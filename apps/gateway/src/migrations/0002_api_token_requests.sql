-- POST /tokens with an Idempotency-Key: which token the key minted, so a retry answers the first
-- body instead of minting a second credential. The plaintext is kept only sealed (AES-256-GCM) under
-- a key derived from the caller's own bearer token, which this database does not hold, and only for
-- the replay window; after it the row stays (the key keeps naming its token) with the seal wiped.
CREATE TABLE {{schema}}.api_token_requests (
  issuer_token_id uuid        NOT NULL,
  idempotency_key text        NOT NULL,
  -- SHA-256 of the parsed request: the same key with another request is refused.
  request_hash    bytea       NOT NULL,
  token_id        uuid        NOT NULL REFERENCES {{schema}}.api_tokens (id),
  sealed_token    bytea,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer_token_id, idempotency_key)
);
