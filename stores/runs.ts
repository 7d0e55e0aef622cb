import type { OutputStream } from '../domain/runs/events.ts';
import { runIdentifierKind } from '../domain/runs/names.ts';
import { activeStatuses, type Run } from '../domain/runs/run.ts';
import { inTurn } from '../platform/advisory-lock.ts';
import { poll } from '../platform/poll.ts';
import type { PgPool } from '../platform/postgres.ts';
import { type RunRow, runColumns, runFromRow } from '../schemas/read-models/run-row.ts';

// Reads of the run read model (Postgres `runs` and `run_output`, projected by
// projections/run-postgres.ts). The API answers GETs here (any replica follows any run's output);
// the host carrying runs out, and the fleet's job for a lost host, find its active runs here.

/** A run's state and how many events made it (the projection's `version`). */
export interface Loaded {
  run: Run;
  version: number;
}

export interface OutputLine {
  stream: OutputStream;
  seq: number;
  text: string;
  /** The order the runner appended in, across both streams. */
  position: number;
}

const loaded = (row: RunRow): Loaded => ({ run: runFromRow(row), version: Number(row.version) });

export class RunStore {
  constructor(private readonly pool: PgPool) {}

  private async one(where: string, values: unknown[]): Promise<Loaded | undefined> {
    const result = await this.pool.query<RunRow>(
      `SELECT ${runColumns} FROM runs WHERE ${where} ORDER BY placed_at DESC, run_id DESC LIMIT 1`,
      values,
    );
    const row = result.rows[0];
    return row ? loaded(row) : undefined;
  }

  /**
   * Runs `task` holding the claim on placing the run of this id: a Postgres advisory lock, so
   * across every host one placing of an id at a time looks for the run and places it, and a
   * retried placing (an Idempotency-Key's) finds the first instead of placing a second.
   */
  placingOnce<T>(runId: string, task: () => Promise<T>): Promise<T> {
    return inTurn(this.pool, `orrery:run-placing:${runId}`, task);
  }

  byId(runId: string): Promise<Loaded | undefined> {
    return this.one('run_id = $1', [runId]);
  }

  /** A route's `:name` in the caller's org: an id, or a name (the newest run of that name). */
  resolve(orgId: string, idOrName: string): Promise<Loaded | undefined> {
    return runIdentifierKind(idOrName) === 'id'
      ? this.one('org_id = $1 AND run_id = $2', [orgId, idOrName])
      : this.one('org_id = $1 AND name = $2', [orgId, idOrName]);
  }

  /** Newest first; `active` only those holding hardware (placed or running). */
  async list(orgId: string, filter: { active: boolean; limit: number }): Promise<Run[]> {
    const result = await this.pool.query<RunRow>(
      `SELECT ${runColumns} FROM runs
        WHERE org_id = $1 AND (NOT $2 OR status = ANY($3::text[]))
        ORDER BY placed_at DESC, run_id DESC LIMIT $4`,
      [orgId, filter.active, activeStatuses, filter.limit],
    );
    return result.rows.map(runFromRow);
  }

  /** A host's runs holding hardware, oldest first (recovery, and a lost host's). */
  async active(hostId: string): Promise<Loaded[]> {
    const result = await this.pool.query<RunRow>(
      `SELECT ${runColumns} FROM runs
        WHERE status = ANY($1::text[]) AND host_id = $2
        ORDER BY placed_at`,
      [activeStatuses, hostId],
    );
    return result.rows.map(loaded);
  }

  /**
   * Output lines past `afterPosition` (in append order), at most `limit`; only one stream's, and
   * only past its `afterSeq`, when given.
   */
  async output(
    runId: string,
    from: { afterPosition: number; stream?: OutputStream; afterSeq: number; limit: number },
  ): Promise<OutputLine[]> {
    const result = await this.pool.query<OutputLine>(
      `SELECT stream, seq, text, position FROM run_output
        WHERE run_id = $1 AND position > $2 AND ($3::text IS NULL OR (stream = $3 AND seq > $4))
        ORDER BY position LIMIT $5`,
      [runId, from.afterPosition, from.stream ?? null, from.afterSeq, from.limit],
    );
    return result.rows.map((row) => ({ ...row, seq: Number(row.seq), position: Number(row.position) }));
  }

  /** Resolves once the projection has applied `version` events to the run; false on timeout. */
  async waitForVersion(runId: string, version: number, timeoutMs: number): Promise<boolean> {
    const applied = await poll(
      async () => {
        const result = await this.pool.query<{ version: number }>(
          'SELECT version FROM runs WHERE run_id = $1',
          [runId],
        );
        return Number(result.rows[0]?.version ?? 0) >= version;
      },
      { timeoutMs, intervalMs: 5, maxIntervalMs: 50 },
    );
    return applied === true;
  }
}
