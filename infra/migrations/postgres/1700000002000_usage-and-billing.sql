-- Up Migration

-- Usage per org, model and UTC day (spec 000, Billing rules 2), projected from orrery.usage.v1 by
-- projections/usage-postgres.ts. Exact under redelivery: the projection moves its offsets in
-- projection_offsets in the same transaction as these additions. No foreign key to orgs: the
-- usage stream is its own source of truth and is never refused here.
CREATE TABLE usage_daily (
  org_id text NOT NULL,
  model text NOT NULL,
  day date NOT NULL,
  requests bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  fallbacks bigint NOT NULL,
  PRIMARY KEY (org_id, model, day)
);

-- Charges posted on the org stream (ChargePosted), in integer cents: money is never a float.
-- The balance is credit_grants − charges.
CREATE TABLE charges (
  charge_id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES orgs (org_id),
  model text NOT NULL,
  day date NOT NULL,
  cents bigint NOT NULL CHECK (cents > 0),
  posted_at timestamptz NOT NULL
);
CREATE INDEX charges_org_model_day ON charges (org_id, model, day);

-- Down Migration
DROP TABLE charges;
DROP TABLE usage_daily;
