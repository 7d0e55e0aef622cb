import { asShellLine, isArgumentVector } from '../../domain/runs/command-line.ts';
import type { Actor, WorkingFile } from '../../domain/runs/events.ts';
import type { Run, RunStatus } from '../../domain/runs/run.ts';
import type { SandboxSize } from '../../domain/sandboxes/events.ts';
import type { Egress } from '../../domain/sandboxes/network.ts';

// The run read model's row (Postgres `runs`), and the one mapping between it and the decider's
// state: the projection writes rows with it (projections/run-postgres.ts) and every reader loads
// them with it (stores/runs.ts), so the two never disagree on a column.

export interface WireActor {
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
  /** A shell command line; for an argument vector, the vector quoted as one (domain/runs/command-line.ts). */
  command: string;
  /** The argument vector, run with no shell; null: `command` is the shell command line (rows from before). */
  command_argv: string[] | null;
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
  host_id: string;
  /** What its sandbox may reach (domain/sandboxes/network.ts); lists as Postgres `text[]`. */
  network_egress: Egress;
  network_allow: string[];
  network_deny: string[];
  /** The template its sandbox was made from, or null: the base. */
  template_id: string | null;
  version: number;
}

export const runRowColumns = [
  'run_id',
  'org_id',
  'name',
  'status',
  'size',
  'command',
  'command_argv',
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
  'host_id',
  'network_egress',
  'network_allow',
  'network_deny',
  'template_id',
  'version',
] as const satisfies readonly (keyof RunRow)[];

export const runColumns = runRowColumns.join(', ');
export const runJsonColumns = new Set<string>(['env_names', 'files', 'placed_by', 'stopped_by']);

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
    command: row.command_argv ?? row.command,
    envNames: row.env_names,
    files: row.files.map((file): WorkingFile => ({ path: file.path, sizeBytes: file.size_bytes })),
    ceilingMicrodollars: Number(row.ceiling_microdollars),
    placedBy: actorFromRow(row.placed_by),
    host: row.host_id,
    network: { egress: row.network_egress, allow: row.network_allow, deny: row.network_deny },
    template: row.template_id,
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

export function runToRow(run: Run, version: number): Record<(typeof runRowColumns)[number], unknown> {
  return {
    run_id: run.id,
    org_id: run.orgId,
    name: run.name,
    status: run.status,
    size: run.size,
    command: asShellLine(run.command),
    command_argv: isArgumentVector(run.command) ? run.command : null,
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
    host_id: run.host,
    network_egress: run.network.egress,
    network_allow: run.network.allow,
    network_deny: run.network.deny,
    template_id: run.template,
    version,
  };
}
