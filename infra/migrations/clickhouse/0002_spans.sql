-- The spans read model (001, "Stored span"; DESIGN.md, "Storage"): one row per span, projected from
-- orrery.spans.v1 by projections/spans-clickhouse.ts. Typed columns for what is filtered and
-- grouped on; JSON text for what is only displayed. Nullable keeps an absent model, token count or
-- session apart from an empty one, as the stored span does.
--
-- ReplacingMergeTree on the span's identity, so a redelivered batch collapses to one row; readers
-- use FINAL wherever a duplicate would change an answer. Partitioned by the UTC day the trace was
-- first received (001, "Limits": retention is 30 days from then, and spans arriving later go with
-- the trace), so retention drops whole partitions (jobs/span-retention.ts). Times are nanoseconds
-- in UInt64, since 18.16 has no DateTime64. Trace-level values are aggregated from these rows at
-- read time (api/queries/traces-store.ts), which stays exact under redelivery.
--
-- received_offset and received_index (the event's offset on its partition, where all of a trace's
-- events go, and the span's place in the event) keep the order the spans were sent in, which
-- breaks ties between spans starting together in the trace-level values, as summarizeTrace does.
CREATE TABLE IF NOT EXISTS spans (
  org_id String,
  trace_id String,
  span_id String,
  trace_first_received_at DateTime('UTC'),
  parent_span_id String,
  name String,
  kind Enum8('generation' = 1, 'tool' = 2, 'agent' = 3, 'retrieval' = 4, 'span' = 5),
  otel_kind UInt8,
  start_time_unix_nano UInt64,
  end_time_unix_nano UInt64,
  status_code UInt8,
  status_message String,
  model Nullable(String),
  input_tokens Nullable(UInt64),
  output_tokens Nullable(UInt64),
  session_id Nullable(String),
  user_id Nullable(String),
  service_name Nullable(String),
  environment Nullable(String),
  input Nullable(String),
  output Nullable(String),
  input_truncated UInt8,
  output_truncated UInt8,
  redacted_count UInt32,
  attributes String,
  events String,
  links String,
  resource_attributes String,
  scope_name String,
  scope_version String,
  size_bytes UInt64,
  event_id String,
  received_offset UInt64,
  received_index UInt32
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMMDD(trace_first_received_at)
ORDER BY (org_id, trace_id, span_id)
