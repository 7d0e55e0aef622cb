import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { poll } from '../platform/poll.ts';
import { RunFailed } from '../platform/run-to-end.ts';
import { hostEnv, hostProgram, runHost } from './host.ts';

// Root inside a sandbox is not root on the host. Every sandbox runs in a user namespace that maps
// its ids 0-65535 to a range of the host's: root inside has every capability over its own
// namespaces and files, and none over the host (it cannot load modules, mount devices or write
// the host's sysctls). Each sandbox has its own range, 1000000 + 65536 × k, so one sandbox's
// processes and files are not another's on the host either.
// On disk every file keeps the shared range, 1000000-1065535: the base (rootfs.ts shifts it once),
// the templates, every sandbox's own layer, so a layer copies to a fork or a template as it is.
// A sandbox sees them through idmapped mounts (the kernel's MOUNT_ATTR_IDMAP, by our small static
// `idmap-mount`, confine/idmap-mount.c): the shared range shown as its own, and what it writes
// stored back in the shared one. Where the host refuses idmapped mounts, sandboxes share the one
// range, as Docker's userns-remap does, and their status says why.

export const sandboxIdMap = { inside: 0, outside: 1_000_000, count: 65_536 } as const;

/** The host uid and gid of root inside, on disk: the shared range's, whatever the sandbox's own. */
export const sandboxRootOnHost = sandboxIdMap.outside;

/** Ranges above the shared one, within 32-bit ids: 1000000 + 65536 × (1..rangeCount). */
const rangeCount = 65_000;

/** A sandbox's own range (its base on the host, and the helper that maps its files), or why none. */
export const idRange = z.union([
  z.object({ applied: z.literal(true), outside: z.number().int(), idmapMount: z.string() }),
  z.object({ applied: z.literal(false), reason: z.string() }),
]);
export type IdRange = z.infer<typeof idRange>;

/** The host id of root inside the sandbox. */
export function rootOnHost(range: IdRange): number {
  return range.applied ? range.outside : sandboxIdMap.outside;
}

/**
 * The first range no sandbox in `taken` holds, looking from `start` on (runtimes with different
 * state folders look from different places, so their sandboxes' ranges meet only by chance).
 */
export function freeRange(taken: Iterable<number>, start: number): number {
  const held = new Set(taken);
  for (let step = 0; step < rangeCount; step += 1) {
    const outside = sandboxIdMap.outside + sandboxIdMap.count * (((start + step) % rangeCount) + 1);
    if (!held.has(outside)) return outside;
  }
  throw new Error(`every one of the ${rangeCount} id ranges is taken`);
}

/** The sandbox's own user namespace: its 0-65535 are its range's. */
export function sandboxMap(range: IdRange): string {
  return `${sandboxIdMap.inside} ${rootOnHost(range)} ${sandboxIdMap.count}\n`;
}

/**
 * The id map its files are shown through: the shared range as the sandbox's, and the host's root
 * as itself (the overlay, mounted by the host's root, makes its work folders as root).
 */
export function idmapMountMap(outside: number): string {
  return `0 0 1\n${sandboxIdMap.outside} ${outside} ${sandboxIdMap.count}\n`;
}

/**
 * Why this host cannot show sandboxes their files in their own ranges (no idmapped mounts of
 * `paths`' filesystems: the base's, the state folder's), tried with `helper` in a throwaway mount
 * namespace; undefined if it can.
 */
export async function idmapRefused(
  helper: string,
  paths: string[],
  scratchParent: string,
): Promise<string | undefined> {
  const scratch = mkdtempSync(join(scratchParent, '.idmap-probe-'));
  try {
    const pairs = paths.flatMap((path, index) => [path, join(scratch, String(index))]);
    for (const index of paths.keys()) mkdirSync(join(scratch, String(index)));
    await withUserNamespace(idmapMountMap(sandboxIdMap.outside + sandboxIdMap.count), (userns) =>
      runHost(hostProgram('unshare'), [
        '--mount',
        '--propagation',
        'private',
        '--',
        helper,
        userns,
        ...pairs,
      ]),
    );
    return undefined;
  } catch (error) {
    const said = error instanceof RunFailed ? error.tail : String(error);
    return `idmapped mounts are refused here: ${said.trim().split('\n').at(-1)}`;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * A user namespace with `map` (uid and gid alike), held open by a placeholder process while `use`
 * starts the sandbox in it (`nsenter --user=<path>`) or mounts through it (an idmapped mount); the
 * sandbox's processes, or the mounts, then keep it alive.
 *
 * We write the maps ourselves (as host root) rather than through `newuidmap`, which would need
 * the `uidmap` package and ranges in /etc/subuid; and the holder is separate because a process
 * that unshares its user namespace and then execs before its map exists loses its capabilities.
 */
export async function withUserNamespace<T>(
  map: string,
  use: (namespacePath: string) => Promise<T>,
): Promise<T> {
  const holder = spawn(hostProgram('unshare'), ['--user', '--', hostProgram('sleep'), 'infinity'], {
    env: hostEnv,
    stdio: 'ignore',
  });
  try {
    const pid = await unshared(holder);
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
