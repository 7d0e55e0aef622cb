import type { SandboxSize } from './events.ts';

// What each size (spec, `sandboxes.create` option `size`) promises: cores, memory and disk. The spec
// names the sizes and nothing more; the numbers are ours, read by the runtime's limits
// (sandbox-runtime/limits.ts), the catalog and the fleet's placement (hosts.ts):
// - memory leaves room for the desktop that will run in every sandbox (Xvfb, a window manager,
//   Chromium: about 1 GiB busy), so the smallest size gets 2 GiB, and each step doubles;
// - cpus is a CFS quota in whole cores; a host with fewer cores cannot hold the size (the quota
//   would not bind), so placement never puts it there;
// - diskMiB bounds the writable layer, what the sandbox adds to the shared base: a checkout, its
//   dependencies (a Python environment with torch takes several GB), builds, the browser's
//   profile and cache. 8 GiB for the smallest size, doubling with memory;
// - diskMBps bounds how fast it reads and writes that layer, each way: a sandbox writing without
//   end would otherwise take the host's whole disk bandwidth, and the stack's fsyncs wait behind it.

export interface SizeResources {
  cpus: number;
  memoryMiB: number;
  diskMiB: number;
  /** MB/s (10^6 bytes) read and written on its layer, each way. */
  diskMBps: number;
}

export const sizeResources = {
  small: { cpus: 1, memoryMiB: 2048, diskMiB: 8192, diskMBps: 50 },
  standard: { cpus: 2, memoryMiB: 4096, diskMiB: 16384, diskMBps: 100 },
  large: { cpus: 4, memoryMiB: 8192, diskMiB: 32768, diskMBps: 150 },
  xl: { cpus: 8, memoryMiB: 16384, diskMiB: 65536, diskMBps: 200 },
} as const satisfies Record<SandboxSize, SizeResources>;
