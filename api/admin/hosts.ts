import { memoryBudgetMiB, memoryHeldMiB, noSandboxes } from '../../domain/sandboxes/hosts.ts';
import type { PgPool } from '../../platform/postgres.ts';
import { type FleetHost, SandboxHosts } from '../../stores/sandbox-hosts.ts';

// The operator's view of the fleet (issue 47): `npm run admin -- host list`, `host drain <host>`
// (no new sandbox or run is placed there; what it holds keeps running) and `host undrain <host>`.
// A host is named by its id or, when only one host has it, its name.

export class UnknownHost extends Error {
  constructor(named: string, among: readonly FleetHost[] = []) {
    super(
      among.length === 0
        ? `no sandbox host is named "${named}": \`npm run admin -- host list\` shows their ids and names`
        : `${among.length} sandbox hosts are named "${named}" (${among.map((host) => host.hostId).join(', ')}): name one by its id`,
    );
    this.name = 'UnknownHost';
  }
}

export interface HostListing {
  hostId: string;
  name: string;
  fleet: string;
  url: string;
  live: boolean;
  draining: boolean;
  lost: boolean;
  renewedAt: string;
  sandboxes: number;
  memoryHeldMiB: number;
  memoryBudgetMiB: number;
}

/** The hosts of `fleet` (every fleet's when absent), by name. */
export async function listHosts(pool: PgPool, fleet?: string): Promise<HostListing[]> {
  const hosts = new SandboxHosts(pool);
  const [list, held] = await Promise.all([hosts.list(), hosts.held()]);
  return list
    .filter((host) => fleet === undefined || host.fleet === fleet)
    .map((host) => {
      const counts = held.get(host.hostId) ?? noSandboxes();
      return {
        hostId: host.hostId,
        name: host.name,
        fleet: host.fleet,
        url: host.url,
        live: host.live,
        draining: host.draining,
        lost: host.lostAt !== null,
        renewedAt: host.renewedAt.toISOString(),
        sandboxes: Object.values(counts).reduce((sum, count) => sum + count, 0),
        memoryHeldMiB: memoryHeldMiB(counts),
        memoryBudgetMiB: memoryBudgetMiB(host.resources),
      };
    });
}

/** Drains a host (`draining`), or takes the drain back; throws UnknownHost for a name nobody has. */
export async function setHostDraining(pool: PgPool, named: string, draining: boolean): Promise<FleetHost> {
  const hosts = new SandboxHosts(pool);
  const found = await hosts.named(named);
  const [host] = found;
  if (!host || found.length > 1) throw new UnknownHost(named, found);
  const changed = await hosts.setDraining(host.hostId, draining);
  if (!changed) throw new UnknownHost(named);
  return changed;
}
