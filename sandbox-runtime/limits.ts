import type { SandboxSize } from '../domain/sandboxes/events.ts';

// A sandbox's size (spec, `sandboxes.create` option `size`: small, standard, large, xl) as
// resource limits. The spec names the sizes and nothing more; the numbers are ours:
// - memory leaves room for the desktop that will run in every sandbox (Xvfb, a window manager,
//   Chromium: about 1 GiB busy), so the smallest size gets 2 GiB, and each step doubles;
// - cpus is a CFS quota in whole cores; on a host with fewer cores the quota does not bind
//   (this 2-core VM gives `large` and `xl` the 2 cores it has);
// - pids counts tasks (threads too): Chromium alone runs a few hundred.
// Disk is not limited: the writable layer lives on the host's filesystem without a quota.

export interface Limits {
  cpus: number;
  memoryMiB: number;
  pids: number;
}

export const sizeLimits = {
  small: { cpus: 1, memoryMiB: 2048, pids: 1024 },
  standard: { cpus: 2, memoryMiB: 4096, pids: 2048 },
  large: { cpus: 4, memoryMiB: 8192, pids: 4096 },
  xl: { cpus: 8, memoryMiB: 16384, pids: 8192 },
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
