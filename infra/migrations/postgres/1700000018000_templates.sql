-- Up Migration

-- The template read model (issue 48), projected from orrery.template.v1 by
-- projections/template-postgres.ts: one row per template, the state domain/templates' `evolve`
-- folds from its events. A template is made from a recipe (Debian packages and commands) or from
-- a sandbox's files, lives on the sandbox host that made it, and may stand on another template
-- (`parent_template`: a snapshot of a sandbox that was made from one).
CREATE TABLE templates (
  template_id text PRIMARY KEY,
  org_id text NOT NULL,
  name text NOT NULL,
  status text NOT NULL CHECK (status IN ('building', 'ready', 'failed', 'deleted')),
  source_kind text NOT NULL CHECK (source_kind IN ('recipe', 'snapshot')),
  recipe_packages text[] NOT NULL DEFAULT '{}',
  recipe_run text[] NOT NULL DEFAULT '{}',
  source_sandbox text,
  parent_template text,
  host_id text NOT NULL,
  -- Why its build failed: the end of its build log.
  failure text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- Events applied to this row: a command waits for the version its own events make.
  version bigint NOT NULL
);

-- Names are unique among an org's templates that are not deleted: deleting one frees its name.
CREATE UNIQUE INDEX templates_org_name ON templates (org_id, name) WHERE status <> 'deleted';
-- Lists are newest first, per org.
CREATE INDEX templates_org_created ON templates (org_id, created_at DESC, template_id DESC);
-- A host's templates still building, found on its start (recovery).
CREATE INDEX templates_building ON templates (host_id) WHERE status = 'building';

-- The template a sandbox, or a run's sandbox, was made from (null: the base; rows from before).
ALTER TABLE sandboxes ADD COLUMN template_id text;
ALTER TABLE runs ADD COLUMN template_id text;
-- What stands on a template, asked before it is deleted.
CREATE INDEX sandboxes_template ON sandboxes (template_id) WHERE template_id IS NOT NULL;

-- Down Migration
DROP INDEX sandboxes_template;
ALTER TABLE runs DROP COLUMN template_id;
ALTER TABLE sandboxes DROP COLUMN template_id;
DROP TABLE templates;
