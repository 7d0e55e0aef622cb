-- Up Migration

-- An org's lease is kept while its groups follow each other (api/otlp/org-admissions.ts), and the
-- groups are pipelined: a group's ledger read may run while earlier groups are still being
-- recorded. Each recording stamps the lease with its group's number (recorded_seq, counting up
-- per org across holders), so a read knows exactly which earlier groups its snapshot holds and
-- counts only the others in from memory. Another API process that wants the lease marks
-- wanted_at; the holder gives the lease back once its groups under way are recorded.
ALTER TABLE admission_leases ADD COLUMN recorded_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE admission_leases ADD COLUMN wanted_at timestamptz;

-- Down Migration
ALTER TABLE admission_leases DROP COLUMN wanted_at;
ALTER TABLE admission_leases DROP COLUMN recorded_seq;
