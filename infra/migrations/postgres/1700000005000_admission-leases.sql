-- Up Migration

-- Who admits an org's spans right now (api/otlp/admission-lease.ts). It replaces the advisory
-- lock that was held in a transaction across the Kafka publish: a lease is taken before the
-- ledger is read and given back by the statement that records the accepted spans, so no
-- connection waits on Kafka, and an API process that dies holding one loses it when it expires.
-- Released leases stay as rows (expires_at in the past): a release is an update, not a delete.
CREATE TABLE admission_leases (
  org_id text PRIMARY KEY,
  holder text NOT NULL,
  expires_at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE admission_leases;
