import { useRecordingIntervalSeconds } from '../domain/sandboxes/decide.ts';
import type { Metadata } from '../domain/sandboxes/events.ts';
import { identifierKind } from '../domain/sandboxes/names.ts';
import type { Sandbox } from '../domain/sandboxes/sandbox.ts';
import { inTurn } from '../platform/advisory-lock.ts';
import { poll } from '../platform/poll.ts';
import type { PgPool } from '../platform/postgres.ts';
import { type SandboxRow, sandboxColumns, sandboxFromRow } from '../schemas/read-models/sandbox-row.ts';

// Reads of the sandbox read model (Postgres `sandboxes`, projected by
// projections/sandbox-postgres.ts). The API answers GETs and finds a sandbox's host here; the host
// that holds a sandbox loads its state here for each command; the fleet's job finds a lost host's
// sandboxes here.

/** A sandbox's state and how many events made it (the projection's `version`). */
export interface Loaded {
  sandbox: Sandbox;
  version: number;
}

const loaded = (row: SandboxRow): Loaded => ({ sandbox: sandboxFromRow(row), version: row.version });

export class SandboxStore {
  constructor(private readonly pool: PgPool) {}

  private async one(where: string, values: unknown[]): Promise<Loaded | undefined> {
    const result = await this.pool.query<SandboxRow>(
      `SELECT ${sandboxColumns} FROM sandboxes WHERE ${where} LIMIT 1`,
      values,
    );
    const row = result.rows[0];
    return row ? loaded(row) : undefined;
  }

  /** By id, whatever its org (the runtime's reports and recovery). */
  byId(sandboxId: string): Promise<Loaded | undefined> {
    return this.one('sandbox_id = $1', [sandboxId]);
  }

  /**
   * A route's `:id` in the caller's org: an id (deleted sandboxes included, so a repeated destroy
   * answers), or the name of a sandbox that is not deleted (a deleted one's name is free again).
   */
  resolve(orgId: string, idOrName: string): Promise<Loaded | undefined> {
    return identifierKind(idOrName) === 'id'
      ? this.one('org_id = $1 AND sandbox_id = $2', [orgId, idOrName])
      : this.one(`org_id = $1 AND name = $2 AND status <> 'deleted'`, [orgId, idOrName]);
  }

  byIdempotencyKey(orgId: string, key: string): Promise<Loaded | undefined> {
    return this.one('org_id = $1 AND idempotency_key = $2', [orgId, key]);
  }

  async nameTaken(orgId: string, name: string): Promise<boolean> {
    const result = await this.pool.query(
      `SELECT 1 FROM sandboxes WHERE org_id = $1 AND name = $2 AND status <> 'deleted'`,
      [orgId, name],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** Newest first; with `metadata`, only sandboxes having every given key and value. */
  async list(orgId: string, filter: { metadata?: Metadata; all: boolean }): Promise<Sandbox[]> {
    const result = await this.pool.query<SandboxRow>(
      `SELECT ${sandboxColumns} FROM sandboxes
        WHERE org_id = $1 AND ($2 OR status <> 'deleted') AND metadata @> $3::jsonb
        ORDER BY created_at DESC, sandbox_id DESC`,
      [orgId, filter.all, JSON.stringify(filter.metadata ?? {})],
    );
    return result.rows.map(sandboxFromRow);
  }

  /**
   * The host's running sandboxes whose idle timeout may have elapsed at `now` (the decider's
   * `ExpireIdle` has the last word, with the same slack of one use-recording interval).
   */
  async idleCandidates(hostId: string, now: Date): Promise<string[]> {
    const result = await this.pool.query<{ sandbox_id: string }>(
      `SELECT sandbox_id FROM sandboxes
        WHERE status = 'running' AND idle_timeout_seconds > 0 AND host_id = $3
          AND last_used_at + make_interval(secs => idle_timeout_seconds + $2) <= $1
        ORDER BY last_used_at`,
      [now, useRecordingIntervalSeconds, hostId],
    );
    return result.rows.map((row) => row.sandbox_id);
  }

  /**
   * What a host must match on start: every sandbox placed on it that is neither deleted nor lost,
   * and any its runtime still holds (a destroy cut short, or a lost one come back).
   */
  async toRecover(hostId: string, runtimeIds: readonly string[]): Promise<Loaded[]> {
    const result = await this.pool.query<SandboxRow>(
      `SELECT ${sandboxColumns} FROM sandboxes
        WHERE (host_id = $1 AND status NOT IN ('deleted', 'lost')) OR sandbox_id = ANY($2)
        ORDER BY created_at`,
      [hostId, runtimeIds],
    );
    return result.rows.map(loaded);
  }

  /** The sandboxes a host holds (neither deleted nor lost): what becomes lost with it. */
  async heldBy(hostId: string): Promise<Loaded[]> {
    const result = await this.pool.query<SandboxRow>(
      `SELECT ${sandboxColumns} FROM sandboxes
        WHERE host_id = $1 AND status NOT IN ('deleted', 'lost') ORDER BY created_at`,
      [hostId],
    );
    return result.rows.map(loaded);
  }

  /**
   * Runs `task` holding the org's claim on names and idempotency keys: a Postgres advisory lock,
   * so across every host one create or fork of the org at a time checks a name or key and
   * records it, and two hosts never give one name twice.
   */
  claimingNames<T>(orgId: string, task: () => Promise<T>): Promise<T> {
    return inTurn(this.pool, `orrery:sandbox-names:${orgId}`, task);
  }

  /** Resolves once the projection has applied `version` events to the sandbox; false on timeout. */
  async waitForVersion(sandboxId: string, version: number, timeoutMs: number): Promise<boolean> {
    const applied = await poll(
      async () => {
        const result = await this.pool.query<{ version: number }>(
          'SELECT version FROM sandboxes WHERE sandbox_id = $1',
          [sandboxId],
        );
        return (result.rows[0]?.version ?? 0) >= version;
      },
      { timeoutMs, intervalMs: 5, maxIntervalMs: 50 },
    );
    return applied === true;
  }
}
