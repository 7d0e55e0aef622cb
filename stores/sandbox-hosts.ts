import { type SandboxSize, sandboxSizes } from '../domain/sandboxes/events.ts';
import { type HostResources, noSandboxes, type SizeCounts } from '../domain/sandboxes/hosts.ts';
import type { PgPool } from '../platform/postgres.ts';
import type { HostAnnouncement } from '../schemas/sandbox-hosts.ts';

// The fleet of sandbox hosts in Postgres (`sandbox_hosts`, infra/migrations/postgres): each host's
// lease, renewed by its announcements through the API; an operator's drain; what each holds, for
// placement. Liveness is the database's clock against the lease, so every API replica, the jobs
// and the admin command agree on who is a member without any protocol of ours.

export interface FleetHost {
  hostId: string;
  name: string;
  fleet: string;
  url: string;
  resources: HostResources;
  capacity: SizeCounts;
  draining: boolean;
  /** The lease runs (by the database's clock, when read). */
  live: boolean;
  renewedAt: Date;
  leaseExpiresAt: Date;
  /** Set once the fleet's job found it gone for good and marked what it held lost. */
  lostAt: Date | null;
}

interface HostRow {
  host_id: string;
  name: string;
  fleet: string;
  url: string;
  cores: number;
  memory_mib: number;
  memory_overcommit: number;
  capacity: SizeCounts;
  draining: boolean;
  live: boolean;
  renewed_at: Date;
  lease_expires_at: Date;
  lost_at: Date | null;
}

const hostColumns = `host_id, name, fleet, url, cores, memory_mib, memory_overcommit, capacity, draining,
  lease_expires_at > now() AS live, renewed_at, lease_expires_at, lost_at`;

const fromRow = (row: HostRow): FleetHost => ({
  hostId: row.host_id,
  name: row.name,
  fleet: row.fleet,
  url: row.url,
  resources: { cores: row.cores, memoryMiB: row.memory_mib, memoryOvercommit: row.memory_overcommit },
  capacity: row.capacity,
  draining: row.draining,
  live: row.live,
  renewedAt: row.renewed_at,
  leaseExpiresAt: row.lease_expires_at,
  lostAt: row.lost_at,
});

export class SandboxHosts {
  constructor(private readonly pool: PgPool) {}

  /**
   * A host's announcement: its row written or renewed, the lease running `leaseSeconds` from now.
   * A host that was marked lost and comes back is a member again (what it held stays lost).
   */
  async announce(hostId: string, announcement: HostAnnouncement, leaseSeconds: number): Promise<FleetHost> {
    const { name, fleet, url, cores, memory_mib, memory_overcommit, capacity } = announcement;
    const result = await this.pool.query<HostRow>(
      `INSERT INTO sandbox_hosts (host_id, name, fleet, url, cores, memory_mib, memory_overcommit, capacity,
                                  renewed_at, lease_expires_at)
       VALUES ($1, $2, $9, $3, $4, $5, $6, $7, now(), now() + make_interval(secs => $8))
       ON CONFLICT (host_id) DO UPDATE SET
         name = EXCLUDED.name, fleet = EXCLUDED.fleet, url = EXCLUDED.url, cores = EXCLUDED.cores,
         memory_mib = EXCLUDED.memory_mib, memory_overcommit = EXCLUDED.memory_overcommit,
         capacity = EXCLUDED.capacity, renewed_at = EXCLUDED.renewed_at,
         lease_expires_at = EXCLUDED.lease_expires_at, lost_at = NULL
       RETURNING ${hostColumns}`,
      [
        hostId,
        name,
        url,
        cores,
        memory_mib,
        memory_overcommit,
        JSON.stringify(capacity),
        leaseSeconds,
        fleet,
      ],
    );
    const row = result.rows[0];
    if (!row) throw new Error(`the announcement of host ${hostId} wrote no row`);
    return fromRow(row);
  }

  /** A host that stops on purpose ends its lease at once: nothing is placed on it meanwhile. */
  async leave(hostId: string): Promise<void> {
    await this.pool.query(
      'UPDATE sandbox_hosts SET lease_expires_at = LEAST(lease_expires_at, now()) WHERE host_id = $1',
      [hostId],
    );
  }

  /** Every host known, live or not, by name. */
  async list(): Promise<FleetHost[]> {
    const result = await this.pool.query<HostRow>(
      `SELECT ${hostColumns} FROM sandbox_hosts ORDER BY name, host_id`,
    );
    return result.rows.map(fromRow);
  }

  /** The hosts a word names: the one with that id, else every host of that name (people's names repeat). */
  async named(idOrName: string): Promise<FleetHost[]> {
    const result = await this.pool.query<HostRow>(
      `SELECT ${hostColumns} FROM sandbox_hosts WHERE host_id = $1 OR name = $1 ORDER BY host_id = $1 DESC, host_id`,
      [idOrName],
    );
    const [first] = result.rows;
    return first?.host_id === idOrName ? [fromRow(first)] : result.rows.map(fromRow);
  }

  /** Drains a host (no new placements) or takes the drain back; answers the host as it is now. */
  async setDraining(hostId: string, draining: boolean): Promise<FleetHost | undefined> {
    const result = await this.pool.query<HostRow>(
      `UPDATE sandbox_hosts SET draining = $2 WHERE host_id = $1 RETURNING ${hostColumns}`,
      [hostId, draining],
    );
    const row = result.rows[0];
    return row ? fromRow(row) : undefined;
  }

  /** What each host holds, by size: sandboxes neither deleted nor lost, and runs holding hardware. */
  async held(): Promise<Map<string, SizeCounts>> {
    const result = await this.pool.query<{ host_id: string; size: SandboxSize; held: number }>(
      `SELECT host_id, size, count(*)::int AS held FROM (
         SELECT host_id, size FROM sandboxes WHERE status NOT IN ('deleted', 'lost')
         UNION ALL
         SELECT host_id, size FROM runs WHERE status IN ('placed', 'running')
       ) holding GROUP BY host_id, size`,
    );
    const held = new Map<string, SizeCounts>();
    for (const row of result.rows) {
      const counts = held.get(row.host_id) ?? noSandboxes();
      if (sandboxSizes.includes(row.size)) counts[row.size] += row.held;
      held.set(row.host_id, counts);
    }
    return held;
  }

  /** Hosts whose lease ran out more than `graceSeconds` ago and that are not yet marked lost. */
  async goneFor(graceSeconds: number): Promise<FleetHost[]> {
    const result = await this.pool.query<HostRow>(
      `SELECT ${hostColumns} FROM sandbox_hosts
        WHERE lost_at IS NULL AND lease_expires_at + make_interval(secs => $1) < now()
        ORDER BY host_id`,
      [graceSeconds],
    );
    return result.rows.map(fromRow);
  }

  /** Records that what the host held is marked lost; unless it came back meanwhile (a renewed lease). */
  async markLost(hostId: string, graceSeconds: number): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE sandbox_hosts SET lost_at = now()
        WHERE host_id = $1 AND lost_at IS NULL AND lease_expires_at + make_interval(secs => $2) < now()`,
      [hostId, graceSeconds],
    );
    return (result.rowCount ?? 0) > 0;
  }
}
