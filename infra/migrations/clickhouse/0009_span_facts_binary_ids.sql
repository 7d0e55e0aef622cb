-- done when: SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = 'span_facts' AND name = 'trace_id' AND type = 'FixedString(16)'
-- `span_facts` with binary ids, as `spans` in 0008 (which says why and how).
DROP TABLE IF EXISTS span_facts_binary_ids;

CREATE TABLE IF NOT EXISTS span_facts_binary_ids (
  org_id String,
  trace_first_received_at DateTime('UTC'),
  start_time_unix_nano UInt64,
  trace_id FixedString(16),
  span_id FixedString(8),
  kind Enum8('generation' = 1, 'tool' = 2, 'agent' = 3, 'retrieval' = 4, 'span' = 5),
  model Nullable(String),
  generation_input_tokens UInt64,
  generation_output_tokens UInt64,
  status_code UInt8,
  duration_nanos UInt64
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMMDD(trace_first_received_at) * 100 + toHour(trace_first_received_at)
ORDER BY (org_id, start_time_unix_nano, trace_id, span_id);

INSERT INTO span_facts_binary_ids
SELECT
  org_id, trace_first_received_at, start_time_unix_nano, toFixedString(unhex(trace_id), 16),
  toFixedString(unhex(span_id), 8), kind, model, generation_input_tokens, generation_output_tokens,
  status_code, duration_nanos
FROM span_facts
WHERE length(trace_id) = 32;

RENAME TABLE span_facts TO span_facts_hex_ids, span_facts_binary_ids TO span_facts;

DROP TABLE IF EXISTS span_facts_hex_ids
