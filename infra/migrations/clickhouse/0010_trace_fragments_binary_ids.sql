-- done when: SELECT count() FROM system.columns WHERE database = currentDatabase() AND table = 'trace_fragments' AND name = 'trace_id' AND type = 'FixedString(16)'
-- `trace_fragments` with binary ids, as `spans` in 0008 (which says why and how).
DROP TABLE IF EXISTS trace_fragments_binary_ids;

CREATE TABLE IF NOT EXISTS trace_fragments_binary_ids (
  org_id String,
  trace_id FixedString(16),
  trace_first_received_at DateTime('UTC'),
  min_start_time_unix_nano UInt64,
  max_end_time_unix_nano UInt64,
  span_ids Array(FixedString(8)),
  error_span_ids Array(FixedString(8)),
  generation_span_ids Array(FixedString(8)),
  generation_input_tokens Array(UInt64),
  generation_output_tokens Array(UInt64),
  root_span Nullable(String),
  trace_session_id Nullable(String),
  trace_user_id Nullable(String),
  trace_service Nullable(String),
  trace_environment Nullable(String),
  span_models Array(String),
  span_kinds Array(String),
  span_names Array(String)
) ENGINE = MergeTree()
PARTITION BY toYYYYMMDD(trace_first_received_at)
ORDER BY (org_id, min_start_time_unix_nano, trace_id)
SETTINGS index_granularity = 1024;

INSERT INTO trace_fragments_binary_ids
SELECT
  org_id, toFixedString(unhex(trace_id), 16), trace_first_received_at, min_start_time_unix_nano,
  max_end_time_unix_nano, arrayMap(id -> toFixedString(unhex(id), 8), span_ids),
  arrayMap(id -> toFixedString(unhex(id), 8), error_span_ids),
  arrayMap(id -> toFixedString(unhex(id), 8), generation_span_ids), generation_input_tokens,
  generation_output_tokens, root_span, trace_session_id, trace_user_id, trace_service,
  trace_environment, span_models, span_kinds, span_names
FROM trace_fragments
WHERE length(trace_id) = 32;

RENAME TABLE trace_fragments TO trace_fragments_hex_ids, trace_fragments_binary_ids TO trace_fragments;

DROP TABLE IF EXISTS trace_fragments_hex_ids
