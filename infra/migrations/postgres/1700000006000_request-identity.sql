-- Up Migration

-- A usage event's identity is its request id: every request counted into usage_daily is
-- remembered here, so the same request published twice (a publish that timed out after Kafka
-- wrote it, then the caller's retry with the same Idempotency-Key) is billed once. Kept a week,
-- longer than any retry (jobs/retention.ts).
CREATE TABLE usage_counted (
  request_id text PRIMARY KEY,
  counted_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_counted_at ON usage_counted (counted_at);

-- Idempotency keys of title and preview requests (api/inference/idempotency.ts), as Stripe keeps
-- them: 24 hours, per org. A retry with the same key is the same request: the same request id and
-- time (so every projection counts it once), and the first answer once there is one.
CREATE TABLE inference_idempotency (
  org_id text NOT NULL,
  idempotency_key text NOT NULL,
  request_id text NOT NULL,
  occurred_at timestamptz NOT NULL,
  fingerprint text NOT NULL,
  answer jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, idempotency_key)
);
CREATE INDEX inference_idempotency_created ON inference_idempotency (created_at);

-- Down Migration
DROP TABLE inference_idempotency;
DROP TABLE usage_counted;
