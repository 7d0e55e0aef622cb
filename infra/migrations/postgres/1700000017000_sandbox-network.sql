-- Up Migration

-- What each sandbox and each run's sandbox may reach (issue 48; domain/sandboxes/network.ts):
-- `open` (the internet, less the ranges no sandbox ever reaches) or `none` (loopback only), an
-- allow list that narrows open to what it names, and a deny list; CIDRs in their canonical form
-- and host names in lower case, at most 100 a list. The projections write them from the events
-- (SandboxCreated, SandboxUpdated, RunPlaced). Rows from before are `none` with empty lists: those
-- sandboxes and runs had loopback only, and events from then, carrying no policy, are read so too,
-- so a projection replayed from the start writes the same.
ALTER TABLE sandboxes
  ADD COLUMN network_egress text NOT NULL DEFAULT 'none' CHECK (network_egress IN ('open', 'none')),
  ADD COLUMN network_allow text[] NOT NULL DEFAULT '{}',
  ADD COLUMN network_deny text[] NOT NULL DEFAULT '{}';

ALTER TABLE runs
  ADD COLUMN network_egress text NOT NULL DEFAULT 'none' CHECK (network_egress IN ('open', 'none')),
  ADD COLUMN network_allow text[] NOT NULL DEFAULT '{}',
  ADD COLUMN network_deny text[] NOT NULL DEFAULT '{}';

-- Down Migration
ALTER TABLE runs DROP COLUMN network_deny, DROP COLUMN network_allow, DROP COLUMN network_egress;
ALTER TABLE sandboxes DROP COLUMN network_deny, DROP COLUMN network_allow, DROP COLUMN network_egress;
