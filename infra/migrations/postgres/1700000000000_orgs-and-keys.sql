-- Up Migration

-- Where each Postgres projection has got to in its topic: written in the same transaction as the
-- rows it projected, so a redelivered batch is recognised and skipped (DESIGN.md, idempotence).
CREATE TABLE projection_offsets (
  group_id text NOT NULL,
  topic text NOT NULL,
  partition integer NOT NULL,
  next_offset bigint NOT NULL,
  PRIMARY KEY (group_id, topic, partition)
);

CREATE TABLE orgs (
  org_id text PRIMARY KEY,
  name text NOT NULL,
  tracing_enabled boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL
);

CREATE TABLE api_keys (
  key_id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES orgs (org_id),
  name text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  key_prefix text NOT NULL,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX api_keys_org ON api_keys (org_id);

-- Integer cents: money is never a float.
CREATE TABLE credit_grants (
  grant_id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES orgs (org_id),
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  reason text NOT NULL,
  granted_at timestamptz NOT NULL
);
CREATE INDEX credit_grants_org ON credit_grants (org_id);

-- Down Migration
DROP TABLE credit_grants;
DROP TABLE api_keys;
DROP TABLE orgs;
DROP TABLE projection_offsets;
