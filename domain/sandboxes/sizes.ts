import type { SandboxSize } from './events.ts';

// What each size (spec, `sandboxes.create` option `size`) promises: cores and memory. The spec
// names the sizes and nothing more; the numbers are ours, read by the runtime's limits
// (sandbox-runtime/limits.ts), the catalog and the fleet's placement (hosts.ts):
// - memory leaves room for the desktop that will run in every sandbox (Xvfb, a window manager,
//   Chromium: about 1 GiB busy), so the smallest size gets 2 GiB, and each step doubles;
// - cpus is a CFS quota in whole cores; a host with fewer cores cannot hold the size (the quota
//   would not bind), so placement never puts it there.

export interface SizeResources {
  cpus: number;
  memoryMiB: number;
}

export const sizeResources = {
  small: { cpus: 1, memoryMiB: 2048 },
  standard: { cpus: 2, memoryMiB: 4096 },
  large: { cpus: 4, memoryMiB: 8192 },
  xl: { cpus: 8, memoryMiB: 16384 },
} as const satisfies Record<SandboxSize, SizeResources>;
