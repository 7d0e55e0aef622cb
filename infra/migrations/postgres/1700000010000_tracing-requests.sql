-- Up Migration

-- A member's request to join the tracing beta (TracingRequested on the org stream): when, and who
-- asked first. An operator lists the pending ones (`npm run admin -- tracing requests`) and grants
-- them with `tracing enable`.
ALTER TABLE orgs ADD COLUMN tracing_requested_at timestamptz;
ALTER TABLE orgs ADD COLUMN tracing_requested_by text;

-- Down Migration
ALTER TABLE orgs DROP COLUMN tracing_requested_by;
ALTER TABLE orgs DROP COLUMN tracing_requested_at;
