-- Up Migration

-- Dashboard sessions (api/people/sessions.ts): server-side, so logging out or an expiry ends one
-- at once. Only the SHA-256 of the cookie's secret is kept. Expired rows are deleted by
-- jobs/retention.ts.
CREATE TABLE sessions (
  session_hash text PRIMARY KEY,
  person_id text NOT NULL,
  -- The session's own CSRF secret (synchronizer tokens, @fastify/csrf): a state-changing
  -- request made with the cookie must carry a token made from it.
  csrf_secret text NOT NULL,
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_person ON sessions (person_id);
CREATE INDEX sessions_expires ON sessions (expires_at);

-- The command-line login (RFC 8628, device authorization grant): a device code the CLI polls
-- with (its SHA-256 only), the user code a person types on the dashboard, and what they decided.
-- A key is created only when the CLI collects an approved login, so no key secret is ever stored.
CREATE TABLE device_logins (
  device_code_hash text PRIMARY KEY,
  user_code text NOT NULL UNIQUE,
  client_name text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'collected')),
  org_id text,
  person_id text,
  interval_seconds integer NOT NULL,
  last_polled_at timestamptz,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  key_id text
);
CREATE INDEX device_logins_expires ON device_logins (expires_at);

-- Down Migration
DROP TABLE device_logins;
DROP TABLE sessions;
