import type { SandboxSize } from '../domain/sandboxes/events.ts';
import { type SizeResources, sizeResources } from '../domain/sandboxes/sizes.ts';

// A sandbox's size as resource limits: its cores and memory are the domain's
// (domain/sandboxes/sizes.ts, which says why those numbers), and pids counts tasks (threads too):
// Chromium alone runs a few hundred. On a host with fewer cores than a size's quota the quota does
// not bind, which is why placement never puts such a size there (domain/sandboxes/hosts.ts).
// diskMiB bounds the writable layer, what the sandbox adds to the shared base (which it does not
// count): a checkout, its dependencies (a Python environment with torch takes several GB),
// builds, the browser's profile and cache. 8 GiB for the smallest size, doubling with memory. The
// layer is a sparse image of that size (sandbox-fs.ts): it takes on the host's disk only what
// the sandbox writes, so the quota bounds a sandbox, not the sum over a host's sandboxes.
// diskMBps bounds how fast it reads and writes that layer (disk-io.ts): a sandbox writing without
// end would otherwise take the host's whole disk bandwidth, and the stack's fsyncs wait behind it.

export interface Limits extends SizeResources {
  pids: number;
  diskMiB: number;
  /** MB/s (10^6 bytes) read and written on its layer, each way. */
  diskMBps: number;
}

export const sizeLimits = {
  small: { ...sizeResources.small, pids: 1024, diskMiB: 8192, diskMBps: 50 },
  standard: { ...sizeResources.standard, pids: 2048, diskMiB: 16384, diskMBps: 100 },
  large: { ...sizeResources.large, pids: 4096, diskMiB: 32768, diskMBps: 150 },
  xl: { ...sizeResources.xl, pids: 8192, diskMiB: 65536, diskMBps: 200 },
} as const satisfies Record<SandboxSize, Limits>;

export const limitControllers = ['memory', 'cpu', 'pids'] as const;
export type LimitController = (typeof limitControllers)[number];

/** The CFS period: quotas are whole cores of this period. */
export const cpuPeriodMicros = 100_000;

export interface CgroupSetting {
  file: string;
  value: string;
}

/**
 * The files to write in a sandbox's cgroup for one controller, in order, for cgroup v2 (the
 * unified hierarchy) or v1 (a hierarchy per controller, as on hosts that still mount them).
 */
export function limitSettings(limits: Limits, controller: LimitController, version: 1 | 2): CgroupSetting[] {
  const quota = String(limits.cpus * cpuPeriodMicros);
  const memory = String(limits.memoryMiB * 1024 * 1024);
  const table: Record<LimitController, Record<1 | 2, CgroupSetting[]>> = {
    memory: {
      2: [{ file: 'memory.max', value: memory }],
      1: [{ file: 'memory.limit_in_bytes', value: memory }],
    },
    cpu: {
      2: [{ file: 'cpu.max', value: `${quota} ${cpuPeriodMicros}` }],
      // The period first: the kernel checks the quota against the period in force.
      1: [
        { file: 'cpu.cfs_period_us', value: String(cpuPeriodMicros) },
        { file: 'cpu.cfs_quota_us', value: quota },
      ],
    },
    pids: {
      2: [{ file: 'pids.max', value: String(limits.pids) }],
      1: [{ file: 'pids.max', value: String(limits.pids) }],
    },
  };
  return table[controller][version];
}
