import { describe, expect, it } from 'vitest';
import { sandboxSizes } from '../../../domain/sandboxes/events.ts';
import {
  cpuPeriodMicros,
  limitControllers,
  limitSettings,
  sizeLimits,
} from '../../../sandbox-runtime/limits.ts';

describe('size to limits', () => {
  it.each([
    ['small', 1, 2048, 1024, 8192, 50],
    ['standard', 2, 4096, 2048, 16384, 100],
    ['large', 4, 8192, 4096, 32768, 150],
    ['xl', 8, 16384, 8192, 65536, 200],
  ] as const)(
    '%s: %i cpus, %i MiB, %i tasks, %i MiB of disk at %i MB/s',
    (size, cpus, memoryMiB, pids, diskMiB, diskMBps) => {
      expect(sizeLimits[size]).toEqual({ cpus, memoryMiB, pids, diskMiB, diskMBps });
    },
  );

  it("covers exactly the spec's sizes, each larger than the last in every resource", () => {
    expect(Object.keys(sizeLimits)).toEqual([...sandboxSizes]);
    const ordered = sandboxSizes.map((size) => sizeLimits[size]);
    for (const [index, limits] of ordered.entries()) {
      const previous = ordered[index - 1];
      if (previous === undefined) continue;
      expect(limits.cpus).toBeGreaterThan(previous.cpus);
      expect(limits.memoryMiB).toBeGreaterThan(previous.memoryMiB);
      expect(limits.pids).toBeGreaterThan(previous.pids);
      expect(limits.diskMiB).toBeGreaterThan(previous.diskMiB);
      expect(limits.diskMBps).toBeGreaterThan(previous.diskMBps);
    }
  });
});

describe('cgroup files per controller', () => {
  const standard = sizeLimits.standard;

  it('writes cgroup v2 files', () => {
    expect(limitSettings(standard, 'memory', 2)).toEqual([{ file: 'memory.max', value: '4294967296' }]);
    expect(limitSettings(standard, 'cpu', 2)).toEqual([{ file: 'cpu.max', value: '200000 100000' }]);
    expect(limitSettings(standard, 'pids', 2)).toEqual([{ file: 'pids.max', value: '2048' }]);
  });

  it('writes cgroup v1 files, the CFS period before the quota', () => {
    expect(limitSettings(standard, 'memory', 1)).toEqual([
      { file: 'memory.limit_in_bytes', value: '4294967296' },
    ]);
    expect(limitSettings(standard, 'cpu', 1)).toEqual([
      { file: 'cpu.cfs_period_us', value: String(cpuPeriodMicros) },
      { file: 'cpu.cfs_quota_us', value: '200000' },
    ]);
    expect(limitSettings(standard, 'pids', 1)).toEqual([{ file: 'pids.max', value: '2048' }]);
  });

  it('gives every size a setting for every controller in both versions', () => {
    for (const size of sandboxSizes) {
      for (const controller of limitControllers) {
        expect(limitSettings(sizeLimits[size], controller, 1).length).toBeGreaterThan(0);
        expect(limitSettings(sizeLimits[size], controller, 2).length).toBeGreaterThan(0);
      }
    }
    expect(limitSettings(sizeLimits.xl, 'cpu', 2)).toEqual([{ file: 'cpu.max', value: '800000 100000' }]);
    expect(limitSettings(sizeLimits.small, 'memory', 2)).toEqual([
      { file: 'memory.max', value: '2147483648' },
    ]);
  });
});
