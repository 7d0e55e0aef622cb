-- Up Migration

-- The sandbox read model, projected from orrery.sandbox.v1 by projections/sandbox-postgres.ts: one
-- row per sandbox, the state domain/sandboxes' `evolve` folds from its events. The API loads a row
-- as the decider's state, so every field of that state has a column here.
--
-- Sandbox tokens need nothing stored: they are signed (api/auth/sandbox-tokens.ts) and checked
-- against this row (`has_secrets`) and the org stream (the minting key still live).
CREATE TABLE sandboxes (
  sandbox_id text PRIMARY KEY,
  org_id text NOT NULL,
  name text NOT NULL,
  status text NOT NULL CHECK (status IN ('starting', 'running', 'stopped', 'deleted')),
  size text NOT NULL CHECK (size IN ('small', 'standard', 'large', 'xl')),
  metadata jsonb NOT NULL DEFAULT '{}',
  -- 0 means never.
  idle_timeout_seconds integer NOT NULL CHECK (idle_timeout_seconds >= 0),
  idempotency_key text,
  forked_from text,
  has_secrets boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- Start of the idle clock: creation, start, resume, or the last recorded use.
  last_used_at timestamptz NOT NULL,
  -- The desktop: absent (NULL), 'starting' with its size, or 'running' with its endpoints.
  desktop_status text CHECK (desktop_status IN ('starting', 'running')),
  desktop_width integer,
  desktop_height integer,
  desktop_display text,
  desktop_vnc_port integer,
  desktop_devtools text,
  desktop_browser text,
  -- Events applied to this row: the API waits for the version its own events make.
  version bigint NOT NULL
);

-- Names are unique among an org's sandboxes that are not deleted: destroying one frees its name.
CREATE UNIQUE INDEX sandboxes_org_name ON sandboxes (org_id, name) WHERE status <> 'deleted';
-- A retry with the same idempotency key finds the sandbox the first attempt created.
CREATE UNIQUE INDEX sandboxes_org_idempotency_key ON sandboxes (org_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
-- Lists are newest first, per org.
CREATE INDEX sandboxes_org_created ON sandboxes (org_id, created_at DESC, sandbox_id DESC);
-- `metadata[key]=value` filters are containment (`@>`).
CREATE INDEX sandboxes_metadata ON sandboxes USING gin (metadata jsonb_path_ops);
-- The idle-timeout job scans running sandboxes that have a timeout.
CREATE INDEX sandboxes_idle ON sandboxes (last_used_at)
  WHERE status = 'running' AND idle_timeout_seconds > 0;

-- Down Migration
DROP TABLE sandboxes;
