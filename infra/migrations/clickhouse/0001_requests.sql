-- The inference request log (Endpoints > Requests): one row per usage event, collapsed on its
-- identity by ReplacingMergeTree, so a redelivered batch leaves one row under FINAL.
CREATE TABLE IF NOT EXISTS requests (
  org_id String,
  occurred_at DateTime,
  request_id String,
  event_id String,
  occurred_at_ms UInt64,
  key_id String,
  model String,
  endpoint String,
  input_tokens UInt64,
  output_tokens UInt64,
  fallback UInt8,
  latency_ms Float64
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(occurred_at)
ORDER BY (org_id, occurred_at, request_id)
