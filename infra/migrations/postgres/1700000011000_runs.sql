-- Up Migration

-- The run read model (issue 16), projected from orrery.run.v1 by projections/run-postgres.ts: one
-- row per run, the state domain/runs' `evolve` folds from its events (so every field of that state
-- has a column), and its output by stream and sequence number, so it can be read again from any
-- point. Never a secret: environment variables by name only, working files by path and size only.
CREATE TABLE runs (
  run_id text PRIMARY KEY,
  org_id text NOT NULL,
  name text NOT NULL,
  status text NOT NULL
    CHECK (status IN ('placed', 'running', 'succeeded', 'failed', 'stopped', 'ceiling_reached')),
  size text NOT NULL CHECK (size IN ('small', 'standard', 'large', 'xl')),
  command text NOT NULL,
  env_names jsonb NOT NULL DEFAULT '[]',
  -- [{ "path": …, "size_bytes": … }]
  files jsonb NOT NULL DEFAULT '[]',
  -- Integer micro-dollars: money is never a float.
  ceiling_microdollars bigint NOT NULL CHECK (ceiling_microdollars > 0),
  -- { "kind": "key", "key_id": …, "person_id": … } or { "kind": "person", "person_id": … }
  placed_by jsonb NOT NULL,
  placed_at timestamptz NOT NULL,
  started_at timestamptz,
  ended_at timestamptz,
  exit_code integer,
  failure text,
  stopped_by jsonb,
  -- Seconds billed once ended; while running the API counts them from started_at.
  billed_seconds bigint NOT NULL DEFAULT 0,
  -- Seconds whose usage was recorded so far (RunMetered).
  recorded_seconds bigint NOT NULL DEFAULT 0,
  stdout_seq bigint NOT NULL DEFAULT 0,
  stderr_seq bigint NOT NULL DEFAULT 0,
  -- The JSON object the command left at $ORRERY_RESULT_PATH, or why it was not kept.
  result jsonb,
  result_refused text,
  -- Events applied to this row: the API waits for the version its own events make.
  version bigint NOT NULL
);

-- Lists are newest first, per org; `:name` is the newest run of that name.
CREATE INDEX runs_org_placed ON runs (org_id, placed_at DESC, run_id DESC);
CREATE INDEX runs_org_name ON runs (org_id, name, placed_at DESC);
-- Runs holding hardware: the active list, and recovery after a restart.
CREATE INDEX runs_active ON runs (org_id, placed_at DESC) WHERE status IN ('placed', 'running');

CREATE TABLE run_output (
  run_id text NOT NULL,
  stream text NOT NULL CHECK (stream IN ('stdout', 'stderr')),
  seq bigint NOT NULL CHECK (seq > 0),
  text text NOT NULL,
  -- The order the runner appended in, across both streams (the projection's order of the run's events).
  position bigint NOT NULL,
  PRIMARY KEY (run_id, stream, seq)
);
CREATE INDEX run_output_position ON run_output (run_id, position);

-- Run time is billed in the same rollups as tokens (domain/billing/price.ts): seconds on a run
-- meter (`run:small`…) per org and UTC day; 0 for a model.
ALTER TABLE usage_daily ADD COLUMN seconds bigint NOT NULL DEFAULT 0;

-- Down Migration
ALTER TABLE usage_daily DROP COLUMN seconds;
DROP TABLE run_output;
DROP TABLE runs;
