import type { SandboxSize } from '../domain/sandboxes/events.ts';
import { type SizeResources, sizeResources } from '../domain/sandboxes/sizes.ts';

// A sandbox's size as resource limits: its cores, memory and disk are the domain's
// (domain/sandboxes/sizes.ts, which says why those numbers), and pids counts tasks (threads too):
// Chromium alone runs a few hundred. On a host with fewer cores than a size's quota the quota does
// not bind, which is why placement never puts such a size there (domain/sandboxes/hosts.ts).
// The disk quota is a sparse image of that size (sandbox-fs.ts): it takes on the host's disk only
// what the sandbox writes, so it bounds a sandbox, not the sum over a host's sandboxes; the
// bandwidth is a throttle on its loop device (disk-io.ts).

export interface Limits extends SizeResources {
  pids: number;
}

export const sizeLimits = {
  small: { ...sizeResources.small, pids: 1024 },
  standard: { ...sizeResources.standard, pids: 2048 },
  large: { ...sizeResources.large, pids: 4096 },
  xl: { ...sizeResources.xl, pids: 8192 },
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
