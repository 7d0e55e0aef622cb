import type { TemplateEvent } from '../domain/templates/events.ts';
import { evolve } from '../domain/templates/template.ts';
import type { PgClient, PgPool } from '../platform/postgres.ts';
import { templateEventFromWire } from '../schemas/events/template-mapping.ts';
import {
  type TemplateRow,
  templateColumns,
  templateFromRow,
  templateRowColumns,
  templateToRow,
} from '../schemas/read-models/template-row.ts';
import { projectOnce } from './postgres-offsets.ts';
import type { Projection } from './projection.ts';

// Template events → Postgres `templates` (issue 48): for each event, load the row as the
// template's state, fold the event with domain/templates' `evolve` (the same function the host
// decides against), and write the state back. Offsets in the same transaction make a redelivered
// batch change nothing (projectOnce). `version` counts the events applied, so a command can wait
// for its own.

export const templateProjectionGroupId = 'orrery-template-postgres';

/** `FOR UPDATE` inside the projection's transaction: one writer per row at a time. */
async function loadRow(client: PgClient, templateId: string): Promise<TemplateRow | undefined> {
  const result = await client.query<TemplateRow>(
    `SELECT ${templateColumns} FROM templates WHERE template_id = $1 FOR UPDATE`,
    [templateId],
  );
  return result.rows[0];
}

const placeholders = templateRowColumns.map((_, i) => `$${i + 1}`).join(', ');
const updates = templateRowColumns
  .filter((column) => column !== 'template_id')
  .map((column) => `${column} = EXCLUDED.${column}`)
  .join(', ');

/** One event: the row as state, evolved, written back. An event for no known template changes nothing. */
export async function applyTemplateEvent(client: PgClient, event: TemplateEvent): Promise<void> {
  const row = await loadRow(client, event.templateId);
  const next = evolve(row ? templateFromRow(row) : undefined, event);
  if (!next) return;
  const written = templateToRow(next, Number(row?.version ?? 0) + 1);
  await client.query(
    `INSERT INTO templates (${templateColumns}) VALUES (${placeholders})
     ON CONFLICT (template_id) DO UPDATE SET ${updates}`,
    templateRowColumns.map((column) => written[column]),
  );
}

export function templatePostgresProjection(pool: PgPool): Projection<TemplateEvent> {
  return {
    groupId: templateProjectionGroupId,
    stream: 'template',
    from: { wire: templateEventFromWire },
    project: (batch, consumingGroup) => projectOnce(pool, consumingGroup, batch, applyTemplateEvent),
  };
}
