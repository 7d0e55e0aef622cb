-- The trace list's read model: a trace's spans as each insert into `spans` brought them, summarized
-- in one row (a fragment), written by the materialized view below in the same INSERT as the spans.
-- A trace is the union of its fragments: one when all its spans came in one batch, more when they
-- came in several, and a copy when a batch was delivered again.
--
-- Every trace-level value is read back with an aggregate that a repeated fragment cannot change:
-- min and max (start, end), argMin by precedence (root span name; session, user, service and
-- environment from the root span, else the earliest span that has one, ties to the span sent
-- first), set unions (models, kinds, names), and counts and token sums over distinct span ids. So
-- redelivery leaves every answer as it was, without FINAL (api/queries/traces-store.ts).
--
-- Ordered by org, then the fragment's earliest start: every fragment of a trace starts at or after
-- the trace, so the newest traces' fragments are one contiguous range, which a page reads instead
-- of grouping the org's every trace. Partitioned like `spans` (the UTC day the trace was first
-- received), so retention drops the same partitions; deletion mutates it beside `spans`.
--
-- A fragment's candidate for each trace value (and for the root span's name) is written behind its
-- precedence, the key summarizeTrace sorts by: not root (0 or 1), start, offset, place in the event,
-- as fixed-width hex, 41 characters. So the trace's value is the least candidate over its
-- fragments, from the 42nd character; NULL where no span has the value. Column names differ from
-- the span columns they come from: in the view, an alias would hide the column.
CREATE TABLE IF NOT EXISTS trace_fragments (
  org_id String,
  trace_id String,
  trace_first_received_at DateTime('UTC'),
  min_start_time_unix_nano UInt64,
  max_end_time_unix_nano UInt64,
  span_ids Array(String),
  error_span_ids Array(String),
  generation_span_ids Array(String),
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

CREATE MATERIALIZED VIEW IF NOT EXISTS trace_fragments_from_spans TO trace_fragments AS
WITH
  concat(
    toString(toUInt8(parent_span_id != '')),
    reverse(substring(reverse(concat('0000000000000000', hex(start_time_unix_nano))), 1, 16)),
    reverse(substring(reverse(concat('0000000000000000', hex(received_offset))), 1, 16)),
    reverse(substring(reverse(concat('00000000', hex(received_index))), 1, 8))) AS precedence,
  tuple(span_id, ifNull(input_tokens, 0), ifNull(output_tokens, 0)) AS generation
SELECT
  org_id,
  trace_id,
  trace_first_received_at,
  min(start_time_unix_nano) AS min_start_time_unix_nano,
  max(end_time_unix_nano) AS max_end_time_unix_nano,
  groupArray(span_id) AS span_ids,
  groupArrayIf(span_id, status_code = 2) AS error_span_ids,
  arrayMap(g -> tupleElement(g, 1), groupArrayIf(generation, kind = 'generation')) AS generation_span_ids,
  arrayMap(g -> tupleElement(g, 2), groupArrayIf(generation, kind = 'generation')) AS generation_input_tokens,
  arrayMap(g -> tupleElement(g, 3), groupArrayIf(generation, kind = 'generation')) AS generation_output_tokens,
  if(countIf(parent_span_id = '') > 0, minIf(concat(precedence, name), parent_span_id = ''), NULL) AS root_span,
  if(countIf(isNotNull(session_id)) > 0, minIf(concat(precedence, assumeNotNull(session_id)), isNotNull(session_id)), NULL) AS trace_session_id,
  if(countIf(isNotNull(user_id)) > 0, minIf(concat(precedence, assumeNotNull(user_id)), isNotNull(user_id)), NULL) AS trace_user_id,
  if(countIf(isNotNull(service_name)) > 0, minIf(concat(precedence, assumeNotNull(service_name)), isNotNull(service_name)), NULL) AS trace_service,
  if(countIf(isNotNull(environment)) > 0, minIf(concat(precedence, assumeNotNull(environment)), isNotNull(environment)), NULL) AS trace_environment,
  groupUniqArrayIf(assumeNotNull(model), isNotNull(model)) AS span_models,
  groupUniqArray(toString(kind)) AS span_kinds,
  groupUniqArray(name) AS span_names
FROM spans
GROUP BY org_id, trace_id, trace_first_received_at;

-- The spans stored before this migration. Spans inserted meanwhile are in both the view's rows and
-- these, which changes no answer (see above). Large groupings spill to disk rather than fail.
INSERT INTO trace_fragments
WITH
  concat(
    toString(toUInt8(parent_span_id != '')),
    reverse(substring(reverse(concat('0000000000000000', hex(start_time_unix_nano))), 1, 16)),
    reverse(substring(reverse(concat('0000000000000000', hex(received_offset))), 1, 16)),
    reverse(substring(reverse(concat('00000000', hex(received_index))), 1, 8))) AS precedence,
  tuple(span_id, ifNull(input_tokens, 0), ifNull(output_tokens, 0)) AS generation
SELECT
  org_id,
  trace_id,
  trace_first_received_at,
  min(start_time_unix_nano) AS min_start_time_unix_nano,
  max(end_time_unix_nano) AS max_end_time_unix_nano,
  groupArray(span_id) AS span_ids,
  groupArrayIf(span_id, status_code = 2) AS error_span_ids,
  arrayMap(g -> tupleElement(g, 1), groupArrayIf(generation, kind = 'generation')) AS generation_span_ids,
  arrayMap(g -> tupleElement(g, 2), groupArrayIf(generation, kind = 'generation')) AS generation_input_tokens,
  arrayMap(g -> tupleElement(g, 3), groupArrayIf(generation, kind = 'generation')) AS generation_output_tokens,
  if(countIf(parent_span_id = '') > 0, minIf(concat(precedence, name), parent_span_id = ''), NULL) AS root_span,
  if(countIf(isNotNull(session_id)) > 0, minIf(concat(precedence, assumeNotNull(session_id)), isNotNull(session_id)), NULL) AS trace_session_id,
  if(countIf(isNotNull(user_id)) > 0, minIf(concat(precedence, assumeNotNull(user_id)), isNotNull(user_id)), NULL) AS trace_user_id,
  if(countIf(isNotNull(service_name)) > 0, minIf(concat(precedence, assumeNotNull(service_name)), isNotNull(service_name)), NULL) AS trace_service,
  if(countIf(isNotNull(environment)) > 0, minIf(concat(precedence, assumeNotNull(environment)), isNotNull(environment)), NULL) AS trace_environment,
  groupUniqArrayIf(assumeNotNull(model), isNotNull(model)) AS span_models,
  groupUniqArray(toString(kind)) AS span_kinds,
  groupUniqArray(name) AS span_names
FROM spans
GROUP BY org_id, trace_id, trace_first_received_at
SETTINGS max_bytes_before_external_group_by = 500000000
