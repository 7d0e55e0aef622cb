-- Cost (issue 50, item 1): each span's cached-input and reasoning tokens (parts of its input and
-- output tokens) and a generation's cost in billionths of a US dollar, priced when received
-- (domain/tracing/prices.ts). Whole nano-dollars keep every sum exact. NULL is no cost (a model
-- without a price), never 0. Rows from before have none.
ALTER TABLE spans ADD COLUMN cached_input_tokens Nullable(UInt64);

ALTER TABLE spans ADD COLUMN reasoning_tokens Nullable(UInt64);

ALTER TABLE spans ADD COLUMN cost_nano_usd Nullable(UInt64);

-- One cost per generation, beside its tokens; the fragments from before read one NULL per
-- generation, so the arrays of a fragment always have one length.
ALTER TABLE trace_fragments ADD COLUMN generation_cost_nano_usd Array(Nullable(UInt64)) DEFAULT arrayMap(id -> CAST(NULL AS Nullable(UInt64)), generation_span_ids);

ALTER TABLE span_facts ADD COLUMN generation_cost_nano_usd Nullable(UInt64);

-- The analytics' view again (0011), with the cost: a view's query cannot be altered here (18.16).
DROP TABLE IF EXISTS span_facts_from_spans;

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
  if(kind = 'generation', cost_nano_usd, CAST(NULL AS Nullable(UInt64))) AS generation_cost_nano_usd,
  status_code,
  toUInt64(if(end_time_unix_nano > start_time_unix_nano, end_time_unix_nano - start_time_unix_nano, 0)) AS duration_nanos
FROM spans
