import { describe, expect, it } from 'vitest';
import {
  capacityBySize,
  fleetHoldsSize,
  type HostResources,
  hasRoom,
  noSandboxes,
  type PlacementCandidate,
  placementOrder,
  type SizeCounts,
} from '../../../domain/sandboxes/hosts.ts';

// The fleet's rules (domain/sandboxes/hosts.ts): what a host holds, room, and placement's order.

const machine = (cores: number, memoryMiB: number, memoryOvercommit = 1): HostResources => ({
  cores,
  memoryMiB,
  memoryOvercommit,
});
const held = (counts: Partial<SizeCounts>): SizeCounts => ({ ...noSandboxes(), ...counts });
const candidate = (
  hostId: string,
  resources: HostResources,
  counts: Partial<SizeCounts> = {},
  draining = false,
): PlacementCandidate => ({ hostId, resources, held: held(counts), draining });

describe('capacity', () => {
  it.each([
    // cores, memory MiB, overcommit → small, standard, large, xl
    [2, 24 * 1024, 1, { small: 12, standard: 6, large: 0, xl: 0 }],
    [2, 24 * 1024, 2, { small: 24, standard: 12, large: 0, xl: 0 }],
    [8, 64 * 1024, 1, { small: 32, standard: 16, large: 8, xl: 4 }],
    [64, 8 * 1024, 1, { small: 4, standard: 2, large: 1, xl: 0 }],
    [1, 2047, 1, { small: 0, standard: 0, large: 0, xl: 0 }],
  ] as const)('%i cores, %i MiB, overcommit %f', (cores, memory, overcommit, expected) => {
    expect(capacityBySize(machine(cores, memory, overcommit))).toEqual(expected);
  });
});

describe('room', () => {
  const host = machine(2, 8 * 1024);
  it.each([
    ['an empty host', {}, 'small', true],
    ['exactly full after this one', { small: 3 }, 'small', true],
    ['full', { small: 4 }, 'small', false],
    ['a standard beside two smalls', { small: 2 }, 'standard', true],
    ['a standard beside three smalls', { small: 3 }, 'standard', false],
    ['a size whose cores it lacks, empty', {}, 'large', false],
  ] as const)('%s', (_name, counts, size, expected) => {
    expect(hasRoom(host, held(counts), size)).toBe(expected);
  });
});

describe('placement', () => {
  const big = machine(4, 16 * 1024);
  it('puts the next sandbox on the host with the most memory free, spreading them', () => {
    const order = placementOrder(
      [
        candidate('host_a', big, { small: 2 }),
        candidate('host_b', big, { small: 1 }),
        candidate('host_c', big),
      ],
      'small',
    );
    expect(order).toEqual(['host_c', 'host_b', 'host_a']);
  });

  it('breaks ties by host id, so every replica orders alike', () => {
    expect(placementOrder([candidate('host_b', big), candidate('host_a', big)], 'small')).toEqual([
      'host_a',
      'host_b',
    ]);
  });

  it("leaves out a draining host, a full one, and one without the size's cores", () => {
    const order = placementOrder(
      [
        candidate('draining', big, {}, true),
        candidate('full', big, { standard: 4 }),
        candidate('few-cores', machine(2, 64 * 1024)),
        candidate('fits', big, { large: 1 }),
      ],
      'large',
    );
    expect(order).toEqual(['fits']);
  });

  it('says whether any host could ever hold a size, draining hosts aside', () => {
    const fleet = [candidate('a', machine(2, 64 * 1024)), candidate('b', machine(8, 64 * 1024), {}, true)];
    expect(fleetHoldsSize(fleet, 'standard')).toBe(true);
    expect(fleetHoldsSize(fleet, 'large')).toBe(false);
    expect(fleetHoldsSize([], 'small')).toBe(false);
  });
});
