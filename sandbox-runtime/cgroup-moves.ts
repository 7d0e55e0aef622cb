import { RunFailed } from '../platform/run-to-end.ts';
import { hostProgram, type Mount, mountTable, runHost } from './host.ts';

// Every exec and file call moves a process into a sandbox's cgroups (process-tree.ts, one write
// to `cgroup.procs` per hierarchy). Each move write-locks the kernel's one lock that every fork
// and exit on the host read-locks, and by default that write waits for an RCU grace period first.
// Under a sandbox's fork bomb the grace periods stretch and the waiting move holds back every fork
// on the host, the platform's included: the abuse spreads (issue 48, bench/sandbox-abuse.ts).
// The kernel's `favordynmods` (cgroup2, Linux 6.0; what OpenShift turns on for the same reason)
// trades a little on each fork for moves without the grace period. It is one flag for the whole
// host, set on any cgroup2 mount; the runtime sets it when it prepares, keeping the mount's
// other flags, and where the kernel refuses says why (the boot option `cgroup_favordynmods=true`
// does the same on hosts with no cgroup2 mount).

export const favorFlag = 'favordynmods';

export type CgroupMoves = { favored: true; mount: string } | { favored: false; reason: string };

/** The host's cgroup2 mounts, from its mount table. */
export function cgroup2Mounts(mounts: Mount[]): Mount[] {
  return mounts.filter((mount) => mount.fsType === 'cgroup2');
}

/** The remount's options: the mount's own, plus the flag. */
export function remountOptions(mount: Mount): string {
  return ['remount', ...mount.superOptions.filter((option) => option !== favorFlag), favorFlag].join(',');
}

const readMounts = () => cgroup2Mounts(mountTable());

/** Turns `favordynmods` on for the host where it is off, and says whether moves are favored. */
export async function favorCgroupMoves(): Promise<CgroupMoves> {
  const mounts = readMounts();
  const favored = mounts.find((mount) => mount.superOptions.includes(favorFlag));
  if (favored) return { favored: true, mount: favored.mountPoint };
  const [mount] = mounts;
  if (mount === undefined)
    return {
      favored: false,
      reason: 'the host has no cgroup2 mount to set favordynmods on (boot with cgroup_favordynmods=true)',
    };
  try {
    await runHost(hostProgram('mount'), ['-o', remountOptions(mount), mount.mountPoint]);
  } catch (error) {
    const why = error instanceof RunFailed ? error.tail.trim() : String(error);
    return { favored: false, reason: `the kernel refused favordynmods on ${mount.mountPoint}: ${why}` };
  }
  // A runtime in a cgroup namespace of its own may remount without the flag taking effect.
  return readMounts().some((each) => each.superOptions.includes(favorFlag))
    ? { favored: true, mount: mount.mountPoint }
    : { favored: false, reason: `favordynmods did not take on ${mount.mountPoint}` };
}
