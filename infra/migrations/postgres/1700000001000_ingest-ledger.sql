-- Up Migration

-- The trace ingest's admission ledger (DESIGN.md, hot paths). It is written by the API in the
-- same transaction that decides admission, committed only after Kafka acknowledged the spans, and
-- serialized per org by an advisory lock, so it is exact for every API process and survives
-- restarts. It is not a projection: it is what the API knows it has accepted.

-- Spans already stored, for idempotence (a span sent again succeeds and is not counted again).
CREATE TABLE ingest_spans (
  org_id text NOT NULL,
  trace_id text NOT NULL,
  span_id text NOT NULL,
  PRIMARY KEY (org_id, trace_id, span_id)
);

-- Spans per trace (10,000 at most) and when the trace's first span was received: the retention
-- clock and the ClickHouse partition of every later span of the trace.
CREATE TABLE ingest_traces (
  org_id text NOT NULL,
  trace_id text NOT NULL,
  span_count integer NOT NULL,
  first_received_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, trace_id)
);
CREATE INDEX ingest_traces_first_received ON ingest_traces (first_received_at);

-- Spans and stored bytes kept per org per UTC month (1,000,000 spans and 5 GiB).
CREATE TABLE ingest_monthly (
  org_id text NOT NULL,
  month date NOT NULL,
  spans bigint NOT NULL,
  bytes bigint NOT NULL,
  PRIMARY KEY (org_id, month)
);

-- Traces deleted through the API: their spans are refused for 24 hours.
CREATE TABLE deleted_traces (
  org_id text NOT NULL,
  trace_id text NOT NULL,
  deleted_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, trace_id)
);

-- Down Migration
DROP TABLE deleted_traces;
DROP TABLE ingest_monthly;
DROP TABLE ingest_traces;
DROP TABLE ingest_spans;
