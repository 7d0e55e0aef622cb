-- The analytics' view again (0004), on `spans` with binary ids (0008), which dropped it.
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
FROM spans
