import { templateIdentifierKind } from '../domain/templates/names.ts';
import type { Template } from '../domain/templates/template.ts';
import { inTurn } from '../platform/advisory-lock.ts';
import { poll } from '../platform/poll.ts';
import type { PgPool } from '../platform/postgres.ts';
import { type TemplateRow, templateColumns, templateFromRow } from '../schemas/read-models/template-row.ts';

// Reads of the template read model (Postgres `templates`, projected by
// projections/template-postgres.ts; issue 48). The API answers GETs and finds a template's host
// here; the host that keeps a template loads its state here for each command, and asks what
// stands on it (sandboxes and templates) before deleting it.

/** A template's state and how many events made it (the projection's `version`). */
export interface LoadedTemplate {
  template: Template;
  version: number;
}

const loaded = (row: TemplateRow): LoadedTemplate => ({
  template: templateFromRow(row),
  version: Number(row.version),
});

export class TemplateStore {
  constructor(private readonly pool: PgPool) {}

  private async one(where: string, values: unknown[]): Promise<LoadedTemplate | undefined> {
    const result = await this.pool.query<TemplateRow>(
      `SELECT ${templateColumns} FROM templates WHERE ${where} LIMIT 1`,
      values,
    );
    const row = result.rows[0];
    return row ? loaded(row) : undefined;
  }

  byId(templateId: string): Promise<LoadedTemplate | undefined> {
    return this.one('template_id = $1', [templateId]);
  }

  /**
   * A route's `:id` (or a body's `template`) in the caller's org: an id (deleted templates
   * included, so a repeated delete answers), or the name of a template that is not deleted.
   */
  resolve(orgId: string, idOrName: string): Promise<LoadedTemplate | undefined> {
    return templateIdentifierKind(idOrName) === 'id'
      ? this.one('org_id = $1 AND template_id = $2', [orgId, idOrName])
      : this.one(`org_id = $1 AND name = $2 AND status <> 'deleted'`, [orgId, idOrName]);
  }

  async nameTaken(orgId: string, name: string): Promise<boolean> {
    const result = await this.pool.query(
      `SELECT 1 FROM templates WHERE org_id = $1 AND name = $2 AND status <> 'deleted'`,
      [orgId, name],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** The org's templates that are not deleted, newest first. */
  async list(orgId: string): Promise<Template[]> {
    const result = await this.pool.query<TemplateRow>(
      `SELECT ${templateColumns} FROM templates WHERE org_id = $1 AND status <> 'deleted'
        ORDER BY created_at DESC, template_id DESC`,
      [orgId],
    );
    return result.rows.map(templateFromRow);
  }

  /**
   * What the read model shows standing on a template, in words for a refusal: sandboxes not
   * deleted (a lost one's files went with its host, the template's too), runs still active, and
   * templates not deleted that were taken from a sandbox made from it.
   */
  async usersOf(templateId: string): Promise<string[]> {
    const result = await this.pool.query<{ what: string }>(
      `SELECT 'sandbox ' || name || ' (' || sandbox_id || ')' AS what, created_at FROM sandboxes
        WHERE template_id = $1 AND status <> 'deleted'
       UNION ALL
       SELECT 'run ' || name || ' (' || run_id || ')', placed_at FROM runs
        WHERE template_id = $1 AND status IN ('placed', 'running')
       UNION ALL
       SELECT 'template ' || name || ' (' || template_id || ')', created_at FROM templates
        WHERE parent_template = $1 AND status <> 'deleted'
       ORDER BY 2`,
      [templateId],
    );
    return result.rows.map((row) => row.what);
  }

  /** A host's templates still building: on its start, builds a dead process left are ended. */
  async building(hostId: string): Promise<LoadedTemplate[]> {
    const result = await this.pool.query<TemplateRow>(
      `SELECT ${templateColumns} FROM templates WHERE host_id = $1 AND status = 'building' ORDER BY created_at`,
      [hostId],
    );
    return result.rows.map(loaded);
  }

  /**
   * Runs `task` holding the org's claim on template names: a Postgres advisory lock, so across
   * every host one template of the org at a time checks its name and records it.
   */
  claimingNames<T>(orgId: string, task: () => Promise<T>): Promise<T> {
    return inTurn(this.pool, `orrery:template-names:${orgId}`, task);
  }

  /** Resolves once the projection has applied `version` events to the template; false on timeout. */
  async waitForVersion(templateId: string, version: number, timeoutMs: number): Promise<boolean> {
    const applied = await poll(
      async () => {
        const result = await this.pool.query<{ version: string }>(
          'SELECT version FROM templates WHERE template_id = $1',
          [templateId],
        );
        return Number(result.rows[0]?.version ?? 0) >= version;
      },
      { timeoutMs, intervalMs: 5, maxIntervalMs: 50 },
    );
    return applied === true;
  }
}
