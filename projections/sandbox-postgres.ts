import type { SandboxEvent } from '../domain/sandboxes/events.ts';
import { evolve } from '../domain/sandboxes/sandbox.ts';
import type { PgClient, PgPool } from '../platform/postgres.ts';
import { sandboxEventFromWire } from '../schemas/events/sandbox-mapping.ts';
import {
  type SandboxRow,
  sandboxColumns,
  sandboxFromRow,
  sandboxRowColumns,
  sandboxToRow,
} from '../schemas/read-models/sandbox-row.ts';
import { projectOnce } from './postgres-offsets.ts';
import type { Projection } from './projection.ts';

// Sandbox events → Postgres `sandboxes`: for each event, load the row as the sandbox's state,
// fold the event with domain/sandboxes' `evolve` (the same function the API decides against),
// and write the state back. Offsets in the same transaction make a redelivered batch change
// nothing (projectOnce). `version` counts the events applied, so the API can wait for its own.

export const sandboxProjectionGroupId = 'orrery-sandbox-postgres';

/** `FOR UPDATE` inside the projection's transaction: one writer per row at a time. */
async function loadRow(client: PgClient, sandboxId: string): Promise<SandboxRow | undefined> {
  const result = await client.query<SandboxRow>(
    `SELECT ${sandboxColumns} FROM sandboxes WHERE sandbox_id = $1 FOR UPDATE`,
    [sandboxId],
  );
  return result.rows[0];
}

const placeholders = sandboxRowColumns.map((_, i) => `$${i + 1}`).join(', ');
const updates = sandboxRowColumns
  .filter((column) => column !== 'sandbox_id')
  .map((column) => `${column} = EXCLUDED.${column}`)
  .join(', ');

async function writeRow(client: PgClient, row: SandboxRow): Promise<void> {
  await client.query(
    `INSERT INTO sandboxes (${sandboxColumns}) VALUES (${placeholders})
     ON CONFLICT (sandbox_id) DO UPDATE SET ${updates}`,
    sandboxRowColumns.map((column) => (column === 'metadata' ? JSON.stringify(row.metadata) : row[column])),
  );
}

/** One event: the row as state, evolved, written back. An event for no known sandbox changes nothing. */
export async function applySandboxEvent(client: PgClient, event: SandboxEvent): Promise<void> {
  const row = await loadRow(client, event.sandboxId);
  const next = evolve(row ? sandboxFromRow(row) : undefined, event);
  if (next) await writeRow(client, sandboxToRow(next, (row?.version ?? 0) + 1));
}

export function sandboxPostgresProjection(pool: PgPool): Projection<SandboxEvent> {
  return {
    groupId: sandboxProjectionGroupId,
    stream: 'sandbox',
    from: { wire: sandboxEventFromWire },
    project: (batch, consumingGroup) => projectOnce(pool, consumingGroup, batch, applySandboxEvent),
  };
}
