-- Up Migration

-- The API processes waiting for an org's admission lease, in the order they first asked
-- (stores/admission-lease.ts). The holder hands the lease to the first of them still asking, in
-- the statement that records its group, and none but that one may take it meanwhile, so a process
-- under steady load cannot take the lease back before the one that waited. A row goes when its
-- process takes the lease or gives up waiting; one whose process stopped asking (it died) is
-- skipped, and removed by the next process that asks. admission_leases.wanted_at stays written for
-- the processes of the release before, which read it, until none runs.
CREATE TABLE admission_lease_wanters (
  org_id text NOT NULL,
  holder text NOT NULL,
  -- Its place in the line: when it first asked.
  since timestamptz NOT NULL,
  -- When it last asked: a process waits by asking again every few milliseconds.
  asked_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, holder)
);

-- Down Migration
DROP TABLE admission_lease_wanters;
