import type { Actor, RunEvent, WorkingFile } from '../domain/runs/events.ts';
import { evolve, type Run, type RunStatus } from '../domain/runs/run.ts';
import type { SandboxSize } from '../domain/sandboxes/events.ts';
import type { PgClient, PgPool } from '../platform/postgres.ts';
import { runEventFromWire } from '../schemas/events/run-mapping.ts';
import { projectOnce } from './postgres-offsets.ts';
import type { Projection } from './projection.ts';

// Run events → Postgres `runs` and `run_output` (issue 16): for each event, load the row as the
// run's state, fold the event with domain/runs' `evolve` (the same function the runner decides
// against), write the state back; an output event also adds its line, keyed by (run, stream,
// seq). Offsets in the same transaction make a redelivered batch change nothing (projectOnce).
// `version` counts the events applied, so the API can wait for its own.

export const runProjectionGroupId = 'orrery-run-postgres';

interface WireActor {
  kind: 'key' | 'person';
  key_id?: string;
  person_id: string | null;
}

export interface RunRow {
  run_id: string;
  org_id: string;
  name: string;
  status: RunStatus;
  size: SandboxSize;
  command: string;
  env_names: string[];
  files: { path: string; size_bytes: number }[];
  ceiling_microdollars: number;
  placed_by: WireActor;
  placed_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
  exit_code: number | null;
  failure: string | null;
  stopped_by: WireActor | null;
  billed_seconds: number;
  recorded_seconds: number;
  stdout_seq: number;
  stderr_seq: number;
  result: unknown;
  result_refused: string | null;
  version: number;
}

const columns = [
  'run_id',
  'org_id',
  'name',
  'status',
  'size',
  'command',
  'env_names',
  'files',
  'ceiling_microdollars',
  'placed_by',
  'placed_at',
  'started_at',
  'ended_at',
  'exit_code',
  'failure',
  'stopped_by',
  'billed_seconds',
  'recorded_seconds',
  'stdout_seq',
  'stderr_seq',
  'result',
  'result_refused',
  'version',
] as const satisfies readonly (keyof RunRow)[];

export const runColumns = columns.join(', ');
const jsonColumns = new Set<string>(['env_names', 'files', 'placed_by', 'stopped_by']);

const actorToRow = (actor: Actor): WireActor =>
  actor.kind === 'key'
    ? { kind: 'key', key_id: actor.keyId, person_id: actor.personId }
    : { kind: 'person', person_id: actor.personId };

const actorFromRow = (row: WireActor): Actor =>
  row.kind === 'key'
    ? { kind: 'key', keyId: row.key_id ?? '', personId: row.person_id }
    : { kind: 'person', personId: row.person_id ?? '' };

/** A row as the decider's state. */
export function runFromRow(row: RunRow): Run {
  return {
    id: row.run_id,
    orgId: row.org_id,
    name: row.name,
    status: row.status,
    size: row.size,
    command: row.command,
    envNames: row.env_names,
    files: row.files.map((file): WorkingFile => ({ path: file.path, sizeBytes: file.size_bytes })),
    ceilingMicrodollars: Number(row.ceiling_microdollars),
    placedBy: actorFromRow(row.placed_by),
    placedAt: row.placed_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    exitCode: row.exit_code,
    failure: row.failure,
    stoppedBy: row.stopped_by ? actorFromRow(row.stopped_by) : null,
    billedSeconds: Number(row.billed_seconds),
    recordedSeconds: Number(row.recorded_seconds),
    lastSeq: { stdout: Number(row.stdout_seq), stderr: Number(row.stderr_seq) },
    result: row.result === null || row.result === undefined ? null : JSON.stringify(row.result),
    resultRefused: row.result_refused,
  };
}

function runToRow(run: Run, version: number): Record<(typeof columns)[number], unknown> {
  return {
    run_id: run.id,
    org_id: run.orgId,
    name: run.name,
    status: run.status,
    size: run.size,
    command: run.command,
    env_names: JSON.stringify(run.envNames),
    files: JSON.stringify(run.files.map((file) => ({ path: file.path, size_bytes: file.sizeBytes }))),
    ceiling_microdollars: run.ceilingMicrodollars,
    placed_by: JSON.stringify(actorToRow(run.placedBy)),
    placed_at: run.placedAt,
    started_at: run.startedAt,
    ended_at: run.endedAt,
    exit_code: run.exitCode,
    failure: run.failure,
    stopped_by: run.stoppedBy ? JSON.stringify(actorToRow(run.stoppedBy)) : null,
    billed_seconds: run.billedSeconds,
    recorded_seconds: run.recordedSeconds,
    stdout_seq: run.lastSeq.stdout,
    stderr_seq: run.lastSeq.stderr,
    // Already JSON text (domain/runs/result.ts): jsonb takes it as it is.
    result: run.result,
    result_refused: run.resultRefused,
    version,
  };
}

/** `FOR UPDATE` inside the projection's transaction: one writer per row at a time. */
async function loadRow(client: PgClient, runId: string): Promise<RunRow | undefined> {
  const result = await client.query<RunRow>(`SELECT ${runColumns} FROM runs WHERE run_id = $1 FOR UPDATE`, [
    runId,
  ]);
  return result.rows[0];
}

const placeholders = columns
  .map((column, i) => (jsonColumns.has(column) || column === 'result' ? `$${i + 1}::jsonb` : `$${i + 1}`))
  .join(', ');
const updates = columns
  .filter((column) => column !== 'run_id')
  .map((column) => `${column} = EXCLUDED.${column}`)
  .join(', ');

async function writeRow(client: PgClient, run: Run, version: number): Promise<void> {
  const row = runToRow(run, version);
  await client.query(
    `INSERT INTO runs (${runColumns}) VALUES (${placeholders}) ON CONFLICT (run_id) DO UPDATE SET ${updates}`,
    columns.map((column) => row[column]),
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
