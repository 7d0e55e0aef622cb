import { type ChildProcess, spawn } from 'node:child_process';
import { readlinkSync, writeFileSync } from 'node:fs';
import { poll } from '../platform/poll.ts';
import { hostEnv, hostProgram } from './host.ts';

// Root inside a sandbox is not root on the host. Every sandbox runs in a user namespace that maps
// its ids 0-65535 to the host's 1000000-1065535: root inside has every capability over its own
// namespaces and files, and none over the host (it cannot load modules, mount devices or write
// the host's sysctls). All sandboxes share this one range (as Docker's userns-remap does); they
// cannot reach each other anyway, having separate pid, mount and network namespaces. The base
// filesystem is owned by the range (rootfs.ts shifts it once), so root inside owns `/`.

export const sandboxIdMap = { inside: 0, outside: 1_000_000, count: 65_536 } as const;

/** The host uid and gid of root inside every sandbox. */
export const sandboxRootOnHost = sandboxIdMap.outside;

/**
 * A user namespace with the sandbox mapping, held open by a placeholder process while `use`
 * starts the sandbox in it (`nsenter --user=<path>`); the sandbox's processes then keep it alive.
 *
 * We write the maps ourselves (as host root) rather than through `newuidmap`, which would need
 * the `uidmap` package and ranges in /etc/subuid; and the holder is separate because a process
 * that unshares its user namespace and then execs before its map exists loses its capabilities.
 */
export async function withUserNamespace<T>(use: (namespacePath: string) => Promise<T>): Promise<T> {
  const holder = spawn(hostProgram('unshare'), ['--user', '--', hostProgram('sleep'), 'infinity'], {
    env: hostEnv,
    stdio: 'ignore',
  });
  try {
    const pid = await unshared(holder);
    const map = `${sandboxIdMap.inside} ${sandboxIdMap.outside} ${sandboxIdMap.count}\n`;
    writeFileSync(`/proc/${pid}/uid_map`, map);
    writeFileSync(`/proc/${pid}/gid_map`, map);
    return await use(`/proc/${pid}/ns/user`);
  } finally {
    holder.kill('SIGKILL');
  }
}

/** Waits until the holder has left our user namespace (its map can only be written after). */
async function unshared(holder: ChildProcess): Promise<number> {
  const ours = readlinkSync('/proc/self/ns/user');
  const failed = () => new Error('could not create a user namespace for the sandbox (unshare --user failed)');
  const unsharedPid = await poll(
    () => {
      const pid = holder.pid;
      if (pid === undefined || holder.exitCode !== null) throw failed();
      let namespace: string;
      try {
        namespace = readlinkSync(`/proc/${pid}/ns/user`);
      } catch {
        throw failed();
      }
      return namespace !== ours && pid;
    },
    { timeoutMs: 5000, intervalMs: 2 },
  );
  if (unsharedPid === undefined) throw failed();
  return unsharedPid;
}
