import type { Metadata, SandboxSize } from '../../domain/sandboxes/events.ts';
import type { Egress } from '../../domain/sandboxes/network.ts';
import type { DesktopState, Sandbox, SandboxStatus } from '../../domain/sandboxes/sandbox.ts';

// The sandbox read model's row (Postgres `sandboxes`), and the one mapping between it and the
// decider's state: the projection writes rows with it (projections/sandbox-postgres.ts) and every
// reader loads them with it (stores/sandboxes.ts), so the two never disagree on a column.

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
  host_id: string;
  /** The network policy (domain/sandboxes/network.ts); lists as Postgres `text[]`. */
  network_egress: Egress;
  network_allow: string[];
  network_deny: string[];
  /** The template it was made from, or null: the base. */
  template_id: string | null;
  version: number;
}

/** The columns in write order; every query selects them all (`sandboxColumns`). */
export const sandboxRowColumns = [
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
  'host_id',
  'network_egress',
  'network_allow',
  'network_deny',
  'template_id',
  'version',
] as const satisfies readonly (keyof SandboxRow)[];

export const sandboxColumns = sandboxRowColumns.join(', ');

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
    host: row.host_id,
    network: { egress: row.network_egress, allow: row.network_allow, deny: row.network_deny },
    template: row.template_id,
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
    host_id: sandbox.host,
    network_egress: sandbox.network.egress,
    network_allow: sandbox.network.allow,
    network_deny: sandbox.network.deny,
    template_id: sandbox.template,
    version,
  };
}
