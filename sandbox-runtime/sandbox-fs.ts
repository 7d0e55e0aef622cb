import { spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { hostEnv, hostProgram, runHost } from './host.ts';
import { sandboxRootOnHost } from './user-namespace.ts';

// A sandbox's own writable filesystem, under `<ORRERY_SANDBOX_DIR>/<id>/`:
// - `upper/`: everything the sandbox changed, over the shared base (rootfs.ts) as an overlay;
// - `work/`: the overlay's scratch space.
// The overlay is mounted only inside the sandbox's private mount namespace (process-tree.ts), so
// the host's mount table never lists it, a crash leaves nothing mounted, and destroy is removal.
// Where overlayfs is refused, `upper/` is a full copy of the base instead (mode `copy`), bound as
// the root: correct, but each sandbox then costs the base's size (about 200 MB) and seconds.

export const filesystemModes = ['overlay', 'copy'] as const;
export type FilesystemMode = (typeof filesystemModes)[number];

export interface Layout {
  dir: string;
  record: string;
  upper: string;
  work: string;
  log: string;
}

export function layoutOf(baseDir: string, id: string): Layout {
  const dir = join(baseDir, id);
  return {
    dir,
    record: join(dir, 'sandbox.json'),
    upper: join(dir, 'upper'),
    work: join(dir, 'work'),
    log: join(dir, 'init.log'),
  };
}

/**
 * Where the wrapper mounts the sandbox's root, in its private mount namespace, before bwrap
 * binds it to `/`: a directory every uid may traverse (bwrap opens it as the sandbox's root, who
 * has no rights over a checkout under a private home), hidden by the mount from nobody else.
 */
export const stagingMountPoint = '/mnt';

/** Makes a new sandbox's writable layer: empty for an overlay, the whole base for a copy. */
export async function createFilesystem(layout: Layout, mode: FilesystemMode, lower: string): Promise<void> {
  mkdirSync(layout.dir, { recursive: true, mode: 0o700 });
  if (mode === 'copy') {
    await runHost(hostProgram('cp'), ['-a', '--reflink=auto', `${lower}/.`, layout.upper]);
    return;
  }
  mkdirSync(layout.upper, { mode: 0o755 });
  mkdirSync(layout.work, { mode: 0o700 });
  // The overlay's `/` takes the upper directory's owner: root inside must own its root.
  chownSync(layout.upper, sandboxRootOnHost, sandboxRootOnHost);
}

/** fork: the copy's writable layer is a copy of the source's (same base, same files). */
export async function copyFilesystem(from: Layout, to: Layout, mode: FilesystemMode): Promise<void> {
  mkdirSync(to.dir, { recursive: true, mode: 0o700 });
  if (mode === 'overlay') mkdirSync(to.work, { mode: 0o700 });
  // -a keeps owners, modes, links and the overlay's own marks (whiteouts, opaque xattrs).
  await runHost(hostProgram('cp'), ['-a', '--reflink=auto', from.upper, to.upper]);
}

export function removeFilesystem(layout: Layout): void {
  rmSync(layout.dir, { recursive: true, force: true });
}

/**
 * The command that mounts the root at `stagingMountPoint` in a new private mount namespace and
 * then runs `then`. Overlay options take commas and colons as separators, so paths must not.
 */
export function mountRootArgv(layout: Layout, mode: FilesystemMode, lower: string, then: string[]): string[] {
  const script =
    mode === 'overlay'
      ? 'mount -t overlay overlay -o "$1" "$2" && shift 2 && exec "$@"'
      : 'mount --bind "$1" "$2" && shift 2 && exec "$@"';
  const source =
    mode === 'overlay'
      ? `lowerdir=${lower},upperdir=${layout.upper},workdir=${layout.work},index=off,metacopy=off`
      : layout.upper;
  for (const path of mode === 'overlay' ? [lower, layout.upper, layout.work] : []) {
    if (/[,:]/.test(path)) throw new Error(`overlay paths cannot hold ',' or ':': ${path}`);
  }
  return [
    hostProgram('unshare'),
    '--mount',
    '--propagation',
    'private',
    '--',
    '/bin/sh',
    '-c',
    script,
    'orrery-mount',
    source,
    stagingMountPoint,
    ...then,
  ];
}

/** Whether this host lets us mount overlayfs (tried in a throwaway mount namespace). */
export function overlayWorks(scratchParent: string): boolean {
  mkdirSync(scratchParent, { recursive: true });
  const scratch = mkdtempSync(join(scratchParent, '.overlay-probe-'));
  try {
    for (const name of ['lower', 'upper', 'work', 'merged']) mkdirSync(join(scratch, name));
    const options = `lowerdir=${scratch}/lower,upperdir=${scratch}/upper,workdir=${scratch}/work`;
    const probe = spawnSync(
      hostProgram('unshare'),
      [
        '--mount',
        '--propagation',
        'private',
        '--',
        'mount',
        '-t',
        'overlay',
        'overlay',
        '-o',
        options,
        `${scratch}/merged`,
      ],
      { env: hostEnv, stdio: 'ignore' },
    );
    return probe.status === 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
