-- Up Migration

-- An org's lease is kept by one API process while the org's groups follow each other
-- (api/otlp/org-admissions.ts), each recording renewing it. Another process that wants it marks
-- wanted_at; the holder gives the lease back at the end of its group under way.
ALTER TABLE admission_leases ADD COLUMN wanted_at timestamptz;

-- Down Migration
ALTER TABLE admission_leases DROP COLUMN wanted_at;
