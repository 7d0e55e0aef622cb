import { describe, expect, it } from 'vitest';
import { cgroup2Mounts, remountOptions } from '../../../sandbox-runtime/cgroup-moves.ts';
import { mountTable } from '../../../sandbox-runtime/host.ts';

// A hybrid host (this VM) and a systemd host with pure cgroup v2, as /proc/self/mountinfo shows them.
const hybrid = [
  '30 25 0:26 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755',
  '31 30 0:27 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw',
  '34 30 0:30 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime shared:15 - cgroup cgroup rw,pids',
].join('\n');
const systemd =
  '35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot';

describe('favordynmods on the host: where it goes and what the remount keeps', () => {
  it('finds the cgroup2 mount of a hybrid host, not the v1 hierarchies', () => {
    expect(cgroup2Mounts(mountTable(hybrid))).toEqual([
      { mountPoint: '/sys/fs/cgroup/unified', fsType: 'cgroup2', superOptions: ['rw'] },
    ]);
  });

  it("keeps the mount's own flags on the remount, since a remount replaces them all", () => {
    const [mount] = cgroup2Mounts(mountTable(systemd));
    expect(mount && remountOptions(mount)).toBe('remount,rw,nsdelegate,memory_recursiveprot,favordynmods');
  });

  it('names the flag once when it is there already', () => {
    expect(
      remountOptions({
        mountPoint: '/sys/fs/cgroup',
        fsType: 'cgroup2',
        superOptions: ['rw', 'favordynmods'],
      }),
    ).toBe('remount,rw,favordynmods');
  });

  it('finds none on a host with cgroup v1 only', () => {
    expect(
      cgroup2Mounts(
        mountTable(
          hybrid
            .split('\n')
            .filter((line) => !line.includes('cgroup2'))
            .join('\n'),
        ),
      ),
    ).toEqual([]);
  });
});
