import type { Metadata, SandboxEvent, SandboxSize } from '../domain/sandboxes/events.ts';
import { type DesktopState, evolve, type Sandbox, type SandboxStatus } from '../domain/sandboxes/sandbox.ts';
import type { PgClient, PgPool } from '../platform/postgres.ts';
import { sandboxEventFromWire } from '../schemas/events/sandbox-mapping.ts';
import { projectOnce } from './postgres-offsets.ts';
import type { Projection } from './projection.ts';

// Sandbox events → Postgres `sandboxes`: for each event, load the row as the sandbox's state,
// fold the event with domain/sandboxes' `evolve` (the same function the API decides against),
// and write the state back. Offsets in the same transaction make a redelivered batch change
// nothing (projectOnce). `version` counts the events applied, so the API can wait for its own.

export const sandboxProjectionGroupId = 'orrery-sandbox-postgres';

export interface SandboxRow {
  sandbox_id: string;
  org_id: string;
  name: string;
  status: SandboxStatus;
  size: SandboxSize;
  metadata: Metadata;
  idle_timeout_seconds: number;
  idempotency_key: string | null;
  forked_from: string | null;
  has_secrets: boolean;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date;
  desktop_status: 'starting' | 'running' | null;
  desktop_width: number | null;
  desktop_height: number | null;
  desktop_display: string | null;
  desktop_vnc_port: number | null;
  desktop_devtools: string | null;
  desktop_browser: string | null;
  version: number;
}

/** The columns in write order; every query selects them all (`sandboxColumns`). */
const columns = [
  'sandbox_id',
  'org_id',
  'name',
  'status',
  'size',
  'metadata',
  'idle_timeout_seconds',
  'idempotency_key',
  'forked_from',
  'has_secrets',
  'created_at',
  'updated_at',
  'last_used_at',
  'desktop_status',
  'desktop_width',
  'desktop_height',
  'desktop_display',
  'desktop_vnc_port',
  'desktop_devtools',
  'desktop_browser',
  'version',
] as const satisfies readonly (keyof SandboxRow)[];

export const sandboxColumns = columns.join(', ');

function desktopOf(row: SandboxRow): DesktopState | undefined {
  if (row.desktop_status === null) return undefined;
  const size = { width: row.desktop_width ?? 0, height: row.desktop_height ?? 0 };
  if (row.desktop_status === 'starting') return { status: 'starting', size };
  return {
    status: 'running',
    size,
    display: row.desktop_display ?? '',
    vncPort: row.desktop_vnc_port ?? 0,
    devtools: row.desktop_devtools ?? '',
    browser: row.desktop_browser ?? '',
  };
}

/** A row as the decider's state. */
export function sandboxFromRow(row: SandboxRow): Sandbox {
  const desktop = desktopOf(row);
  return {
    id: row.sandbox_id,
    orgId: row.org_id,
    name: row.name,
    status: row.status,
    size: row.size,
    metadata: row.metadata,
    idleTimeoutSeconds: row.idle_timeout_seconds,
    idempotencyKey: row.idempotency_key,
    forkedFrom: row.forked_from,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastUsedAt: row.last_used_at,
    hasSecrets: row.has_secrets,
    ...(desktop ? { desktop } : {}),
  };
}

export function sandboxToRow(sandbox: Sandbox, version: number): SandboxRow {
  const { desktop } = sandbox;
  const running = desktop?.status === 'running' ? desktop : undefined;
  return {
    sandbox_id: sandbox.id,
    org_id: sandbox.orgId,
    name: sandbox.name,
    status: sandbox.status,
    size: sandbox.size,
    metadata: sandbox.metadata,
    idle_timeout_seconds: sandbox.idleTimeoutSeconds,
    idempotency_key: sandbox.idempotencyKey,
    forked_from: sandbox.forkedFrom,
    has_secrets: sandbox.hasSecrets,
    created_at: sandbox.createdAt,
    updated_at: sandbox.updatedAt,
    last_used_at: sandbox.lastUsedAt,
    desktop_status: desktop?.status ?? null,
    desktop_width: desktop?.size.width ?? null,
    desktop_height: desktop?.size.height ?? null,
    desktop_display: running?.display ?? null,
    desktop_vnc_port: running?.vncPort ?? null,
    desktop_devtools: running?.devtools ?? null,
    desktop_browser: running?.browser ?? null,
    version,
  };
}

/** `FOR UPDATE` inside the projection's transaction: one writer per row at a time. */
async function loadRow(client: PgClient, sandboxId: string): Promise<SandboxRow | undefined> {
  const result = await client.query<SandboxRow>(
    `SELECT ${sandboxColumns} FROM sandboxes WHERE sandbox_id = $1 FOR UPDATE`,
    [sandboxId],
  );
  return result.rows[0];
}

const placeholders = columns.map((_, i) => `$${i + 1}`).join(', ');
const updates = columns
  .filter((column) => column !== 'sandbox_id')
  .map((column) => `${column} = EXCLUDED.${column}`)
  .join(', ');

async function writeRow(client: PgClient, row: SandboxRow): Promise<void> {
  await client.query(
    `INSERT INTO sandboxes (${sandboxColumns}) VALUES (${placeholders})
     ON CONFLICT (sandbox_id) DO UPDATE SET ${updates}`,
    columns.map((column) => (column === 'metadata' ? JSON.stringify(row.metadata) : row[column])),
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
