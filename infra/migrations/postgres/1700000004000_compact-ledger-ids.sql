-- Up Migration

-- The ledger's trace and span ids as 16- and 8-byte values instead of hex text: its primary key
-- is written for every admitted span and read for every span of every request, and the compact
-- key makes that index less than half the size. Admission only records valid ids (32 and 16 hex
-- digits), so every stored id converts.
ALTER TABLE ingest_spans
  ALTER COLUMN trace_id TYPE uuid USING trace_id::uuid,
  ALTER COLUMN span_id TYPE bigint USING ('x' || span_id)::bit(64)::bigint;
ALTER TABLE ingest_traces ALTER COLUMN trace_id TYPE uuid USING trace_id::uuid;

-- Down Migration
ALTER TABLE ingest_traces ALTER COLUMN trace_id TYPE text USING replace(trace_id::text, '-', '');
ALTER TABLE ingest_spans
  ALTER COLUMN span_id TYPE text USING lpad(to_hex(span_id), 16, '0'),
  ALTER COLUMN trace_id TYPE text USING replace(trace_id::text, '-', '');
