import type { RunEvent } from '../domain/runs/events.ts';
import { evolve, type Run } from '../domain/runs/run.ts';
import type { PgClient, PgPool } from '../platform/postgres.ts';
import { runEventFromWire } from '../schemas/events/run-mapping.ts';
import {
  type RunRow,
  runColumns,
  runFromRow,
  runJsonColumns,
  runRowColumns,
  runToRow,
} from '../schemas/read-models/run-row.ts';
import { projectOnce } from './postgres-offsets.ts';
import type { Projection } from './projection.ts';

// Run events → Postgres `runs` and `run_output` (issue 16): for each event, load the row as the
// run's state, fold the event with domain/runs' `evolve` (the same function the runner decides
// against), write the state back; an output event also adds its line, keyed by (run, stream,
// seq). Offsets in the same transaction make a redelivered batch change nothing (projectOnce).
// `version` counts the events applied, so the API can wait for its own.

export const runProjectionGroupId = 'orrery-run-postgres';

/** `FOR UPDATE` inside the projection's transaction: one writer per row at a time. */
async function loadRow(client: PgClient, runId: string): Promise<RunRow | undefined> {
  const result = await client.query<RunRow>(`SELECT ${runColumns} FROM runs WHERE run_id = $1 FOR UPDATE`, [
    runId,
  ]);
  return result.rows[0];
}

const placeholders = runRowColumns
  .map((column, i) => (runJsonColumns.has(column) || column === 'result' ? `$${i + 1}::jsonb` : `$${i + 1}`))
  .join(', ');
const updates = runRowColumns
  .filter((column) => column !== 'run_id')
  .map((column) => `${column} = EXCLUDED.${column}`)
  .join(', ');

async function writeRow(client: PgClient, run: Run, version: number): Promise<void> {
  const row = runToRow(run, version);
  await client.query(
    `INSERT INTO runs (${runColumns}) VALUES (${placeholders}) ON CONFLICT (run_id) DO UPDATE SET ${updates}`,
    runRowColumns.map((column) => row[column]),
  );
}

/** One event: the row as state, evolved, written back; an output line kept. An event for no known run changes nothing. */
export async function applyRunEvent(client: PgClient, event: RunEvent): Promise<void> {
  const row = await loadRow(client, event.runId);
  const next = evolve(row ? runFromRow(row) : undefined, event);
  if (!next) return;
  await writeRow(client, next, Number(row?.version ?? 0) + 1);
  if (event.type === 'RunOutputAppended')
    await client.query(
      `INSERT INTO run_output (run_id, stream, seq, text, position) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (run_id, stream, seq) DO NOTHING`,
      [event.runId, event.stream, event.seq, event.text, next.lastSeq.stdout + next.lastSeq.stderr],
    );
}

export function runPostgresProjection(pool: PgPool): Projection<RunEvent> {
  return {
    groupId: runProjectionGroupId,
    stream: 'run',
    from: { wire: runEventFromWire },
    project: (batch, consumingGroup) => projectOnce(pool, consumingGroup, batch, applyRunEvent),
  };
}
