import type { TemplateSource } from '../../domain/templates/events.ts';
import type { Template, TemplateStatus } from '../../domain/templates/template.ts';

// The template read model's row (Postgres `templates`), and the one mapping between it and the
// decider's state: the projection writes rows with it (projections/template-postgres.ts) and every
// reader loads them with it (stores/templates.ts), so the two never disagree on a column.

export interface TemplateRow {
  template_id: string;
  org_id: string;
  name: string;
  status: TemplateStatus;
  source_kind: TemplateSource['kind'];
  /** A recipe's; empty for a snapshot. Postgres `text[]`. */
  recipe_packages: string[];
  recipe_run: string[];
  /** A snapshot's sandbox; null for a recipe. */
  source_sandbox: string | null;
  parent_template: string | null;
  host_id: string;
  failure: string | null;
  created_at: Date;
  updated_at: Date;
  version: number;
}

/** The columns in write order; every query selects them all (`templateColumns`). */
export const templateRowColumns = [
  'template_id',
  'org_id',
  'name',
  'status',
  'source_kind',
  'recipe_packages',
  'recipe_run',
  'source_sandbox',
  'parent_template',
  'host_id',
  'failure',
  'created_at',
  'updated_at',
  'version',
] as const satisfies readonly (keyof TemplateRow)[];

export const templateColumns = templateRowColumns.join(', ');

/** A row as the decider's state. */
export function templateFromRow(row: TemplateRow): Template {
  const source: TemplateSource =
    row.source_kind === 'recipe'
      ? { kind: 'recipe', recipe: { packages: row.recipe_packages, run: row.recipe_run } }
      : { kind: 'snapshot', sandbox: row.source_sandbox ?? '' };
  return {
    id: row.template_id,
    orgId: row.org_id,
    name: row.name,
    status: row.status,
    source,
    parent: row.parent_template,
    host: row.host_id,
    failure: row.failure,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function templateToRow(template: Template, version: number): TemplateRow {
  const { source } = template;
  return {
    template_id: template.id,
    org_id: template.orgId,
    name: template.name,
    status: template.status,
    source_kind: source.kind,
    recipe_packages: source.kind === 'recipe' ? source.recipe.packages : [],
    recipe_run: source.kind === 'recipe' ? source.recipe.run : [],
    source_sandbox: source.kind === 'snapshot' ? source.sandbox : null,
    parent_template: template.parent,
    host_id: template.host,
    failure: template.failure,
    created_at: template.createdAt,
    updated_at: template.updatedAt,
    version,
  };
}
