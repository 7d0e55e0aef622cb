-- The analytics' read model: one narrow row per span, only what usage, latency and errors read,
-- ordered by org and start time, written by the materialized view below in the same INSERT as the
-- spans. Exact answers need each span counted once; FINAL gives that but costs more than the whole
-- read at a million spans, so api/queries/analytics-store.ts reads without it wherever it can show
-- that no span is there twice:
--
-- - ReplacingMergeTree on the span's identity (start is part of the span, so a copy has the same
--   key): a merged part holds each span once.
-- - Partitioned by the hour the trace was first received, so an hour settles soon after it ends;
--   jobs/span-facts-compaction.ts merges each settled hour into one part (OPTIMIZE … FINAL), and
--   again when late spans or copies arrive. A redelivered span is in the same hour as its first
--   copy; only a span published again after the ingest's ledger lost its trace's first receipt
--   (api/otlp/ingest.ts) can land in the next hour, where a merge cannot reach it.
-- - A read first lists the parts that hold the org's spans in the range (`_part`); an hour where
--   they are all in one merged part is read as it is, any other hour with FINAL, and the read
--   checks it saw the parts it planned for.
--
-- Retention drops the hours of the UTC days whose `spans` partitions it drops; deletion mutates
-- this table beside `spans`. Tokens are kept for `generation` spans only (0 otherwise), as usage
-- counts them (001, Trace-level values).
CREATE TABLE IF NOT EXISTS span_facts (
  org_id String,
  trace_first_received_at DateTime('UTC'),
  start_time_unix_nano UInt64,
  trace_id String,
  span_id String,
  kind Enum8('generation' = 1, 'tool' = 2, 'agent' = 3, 'retrieval' = 4, 'span' = 5),
  model Nullable(String),
  generation_input_tokens UInt64,
  generation_output_tokens UInt64,
  status_code UInt8,
  duration_nanos UInt64
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMMDD(trace_first_received_at) * 100 + toHour(trace_first_received_at)
ORDER BY (org_id, start_time_unix_nano, trace_id, span_id);

-- An end before the start (a clock step on the sender) is a duration of zero, not a wrapped UInt64.
CREATE MATERIALIZED VIEW IF NOT EXISTS span_facts_from_spans TO span_facts AS
SELECT
  org_id,
  trace_first_received_at,
  start_time_unix_nano,
  trace_id,
  span_id,
  kind,
  model,
  if(kind = 'generation', ifNull(input_tokens, 0), 0) AS generation_input_tokens,
  if(kind = 'generation', ifNull(output_tokens, 0), 0) AS generation_output_tokens,
  status_code,
  toUInt64(if(end_time_unix_nano > start_time_unix_nano, end_time_unix_nano - start_time_unix_nano, 0)) AS duration_nanos
FROM spans;

-- The spans stored before this migration; a span inserted meanwhile is in twice, which the key
-- collapses like any copy.
INSERT INTO span_facts
SELECT
  org_id,
  trace_first_received_at,
  start_time_unix_nano,
  trace_id,
  span_id,
  kind,
  model,
  if(kind = 'generation', ifNull(input_tokens, 0), 0) AS generation_input_tokens,
  if(kind = 'generation', ifNull(output_tokens, 0), 0) AS generation_output_tokens,
  status_code,
  toUInt64(if(end_time_unix_nano > start_time_unix_nano, end_time_unix_nano - start_time_unix_nano, 0)) AS duration_nanos
FROM spans
