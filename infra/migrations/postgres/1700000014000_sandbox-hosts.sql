-- Up Migration

-- The fleet of sandbox hosts (issue 47). Each host process announces itself through the API every
-- few seconds (api/hosts/), which writes its row here: where the API reaches it, what it can hold,
-- and a lease. A host is a member only while its lease runs: nothing of ours decides who is alive,
-- the clock of this database does. An operator drains a host (`npm run admin -- host drain`):
-- nothing new is placed there. A host whose lease ran out longer ago than the grace period is
-- gone for good: the jobs mark its sandboxes lost and its runs failed, and set `lost_at`.
CREATE TABLE sandbox_hosts (
  host_id text PRIMARY KEY,
  -- For people: the machine's name (a Kubernetes node's, by default the hostname).
  name text NOT NULL,
  -- An API places only on hosts of its own fleet (ORRERY_SANDBOX_FLEET): one deployment's, or a test's.
  fleet text NOT NULL DEFAULT 'default',
  -- Where API replicas reach its HTTP interface.
  url text NOT NULL,
  cores integer NOT NULL CHECK (cores > 0),
  memory_mib bigint NOT NULL CHECK (memory_mib > 0),
  -- How many times its memory it gives out to sandboxes' limits (domain/sandboxes/hosts.ts).
  memory_overcommit real NOT NULL CHECK (memory_overcommit > 0),
  -- Sandboxes by size it holds when it holds nothing else, as it announced them.
  capacity jsonb NOT NULL,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  renewed_at timestamptz NOT NULL,
  lease_expires_at timestamptz NOT NULL,
  draining boolean NOT NULL DEFAULT false,
  lost_at timestamptz
);

-- Which host holds each sandbox and run. Rows from before hosts were held by the one machine's
-- API, whose state folder the host `local` takes over (domain/sandboxes/hosts.ts, legacyHostId).
ALTER TABLE sandboxes ADD COLUMN host_id text NOT NULL DEFAULT 'local';
ALTER TABLE sandboxes DROP CONSTRAINT sandboxes_status_check;
ALTER TABLE sandboxes ADD CONSTRAINT sandboxes_status_check
  CHECK (status IN ('starting', 'running', 'stopped', 'lost', 'deleted'));
-- What each host holds (placement), and what a host must recover or mark lost.
CREATE INDEX sandboxes_host ON sandboxes (host_id) WHERE status NOT IN ('lost', 'deleted');

ALTER TABLE runs ADD COLUMN host_id text NOT NULL DEFAULT 'local';
CREATE INDEX runs_host_active ON runs (host_id) WHERE status IN ('placed', 'running');

-- Down Migration
DROP INDEX runs_host_active;
ALTER TABLE runs DROP COLUMN host_id;
DROP INDEX sandboxes_host;
ALTER TABLE sandboxes DROP CONSTRAINT sandboxes_status_check;
ALTER TABLE sandboxes ADD CONSTRAINT sandboxes_status_check
  CHECK (status IN ('starting', 'running', 'stopped', 'deleted'));
ALTER TABLE sandboxes DROP COLUMN host_id;
DROP TABLE sandbox_hosts;
