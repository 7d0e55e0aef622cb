import { type SandboxSize, sandboxSizes } from './events.ts';
import { sizeResources } from './sizes.ts';

// The fleet's rules (issue 47): what a sandbox host can hold, whether it has room for one more
// sandbox of a size, and in which order placement tries the hosts. Pure: the API reads the hosts
// and what each holds from Postgres, the host counts its own sandboxes, and both ask here.
//
// A host's room is memory: each sandbox holds its size's memory whether it runs or is stopped
// (stopped sandboxes are frozen, their memory kept), and a host gives out `memoryOvercommit` times
// what it has, since sandboxes seldom use all their limit (E2B, Daytona and Modal overcommit the
// same way). Cores are a quota, shared: a size whose cores exceed the host's is never placed there.

/**
 * The host of sandboxes recorded before there were hosts (their events name none): the one
 * machine's API held them, and the host that starts from that machine's state folder takes this id.
 */
export const legacyHostId = 'local';

/** What a host announces of itself. */
export interface HostResources {
  cores: number;
  memoryMiB: number;
  /** How many times its memory a host gives out to sandboxes' limits. */
  memoryOvercommit: number;
}

/** Sandboxes (and runs) a host holds, by size. */
export type SizeCounts = Record<SandboxSize, number>;

export const noSandboxes = (): SizeCounts => ({ small: 0, standard: 0, large: 0, xl: 0 });

/** The memory a host gives out, in MiB. */
export function memoryBudgetMiB(host: HostResources): number {
  return Math.floor(host.memoryMiB * host.memoryOvercommit);
}

/** The memory its sandboxes' sizes hold, in MiB. */
export function memoryHeldMiB(held: SizeCounts): number {
  return sandboxSizes.reduce((sum, size) => sum + held[size] * sizeResources[size].memoryMiB, 0);
}

/** Whether the host can ever hold the size: its cores, and its memory budget. */
export function holdsSize(host: HostResources, size: SandboxSize): boolean {
  const wanted = sizeResources[size];
  return wanted.cpus <= host.cores && wanted.memoryMiB <= memoryBudgetMiB(host);
}

/** The capacity a host announces: how many sandboxes of each size it holds when it holds nothing else. */
export function capacityBySize(host: HostResources): SizeCounts {
  const budget = memoryBudgetMiB(host);
  const counts = noSandboxes();
  for (const size of sandboxSizes)
    counts[size] = holdsSize(host, size) ? Math.floor(budget / sizeResources[size].memoryMiB) : 0;
  return counts;
}

/** Memory left for new sandboxes, in MiB (never below zero). */
export function freeMemoryMiB(host: HostResources, held: SizeCounts): number {
  return Math.max(0, memoryBudgetMiB(host) - memoryHeldMiB(held));
}

/** Whether one more sandbox of `size` fits beside what the host holds. */
export function hasRoom(host: HostResources, held: SizeCounts, size: SandboxSize): boolean {
  return holdsSize(host, size) && sizeResources[size].memoryMiB <= freeMemoryMiB(host, held);
}

/** A host as placement sees it. */
export interface PlacementCandidate {
  hostId: string;
  resources: HostResources;
  held: SizeCounts;
  /** Drained by an operator: no new sandbox goes there; the ones it holds keep running. */
  draining: boolean;
}

/**
 * The hosts a new sandbox of `size` may go to, best first: live (the caller passes only those),
 * not draining, with room; the one with the most memory free first, so sandboxes spread across
 * hosts. Ties go by host id, so the order is the same on every API replica.
 */
export function placementOrder(candidates: readonly PlacementCandidate[], size: SandboxSize): string[] {
  return candidates
    .filter((host) => !host.draining && hasRoom(host.resources, host.held, size))
    .map((host) => ({ hostId: host.hostId, free: freeMemoryMiB(host.resources, host.held) }))
    .sort((a, b) => b.free - a.free || (a.hostId < b.hostId ? -1 : a.hostId > b.hostId ? 1 : 0))
    .map((host) => host.hostId);
}

/** Whether any host of the fleet could hold the size (the catalog's `available`), draining ones aside. */
export function fleetHoldsSize(candidates: readonly PlacementCandidate[], size: SandboxSize): boolean {
  return candidates.some((host) => !host.draining && holdsSize(host.resources, size));
}

/** The refusal's words when no host of this deployment could ever hold the size (its cores). */
export function sizeUnavailableMessage(size: SandboxSize): string {
  return `The size \`${size}\` is not available on this deployment: no sandbox host has its ${sizeResources[size].cpus} cores. Choose a size that GET /api/catalog lists as available.`;
}

/** The refusal's words when no host has room (a 503 with Retry-After; the sizes' names are the spec's). */
export function noRoomMessage(size: SandboxSize): string {
  return `No sandbox host has room for a \`${size}\` sandbox right now: retry in a minute, choose a smaller size, or stop or destroy sandboxes you no longer use.`;
}
