import { spawnSync } from 'node:child_process';
import { chownSync, closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { poll } from '../platform/poll.ts';
import { RunFailed } from '../platform/run-to-end.ts';
import { hostEnv, hostProgram, parentPid, processLives, runHost } from './host.ts';
import { sandboxRootOnHost } from './user-namespace.ts';

// A sandbox's own writable filesystem, under `<ORRERY_SANDBOX_DIR>/<id>/`:
// - `upper/`: everything the sandbox changed, over the shared base (rootfs.ts) as an overlay;
// - `work/`: the overlay's scratch space.
// Both live inside `disk.ext4`, an ext4 filesystem of the sandbox's disk quota in a sparse file
// (limits.ts gives each size's): the layer cannot grow past it, a write past it fails with ENOSPC
// inside and nothing outside notices, and `df /` inside shows its size. The image is mounted
// (loop, autoclear) only inside the sandbox's private mount namespace (process-tree.ts), at
// `disk/`, so the host's mount table never lists it, the loop device goes when the sandbox's
// processes end, a crash leaves nothing mounted, and destroy is removal. Where the host cannot
// mount an image (no loop devices, no mkfs.ext4), the layer is `upper/` and `work/` on the host's
// filesystem, without a limit, and the record says why (`DiskLimit`).
// Where overlayfs is refused, `upper/` is a full copy of the base instead (mode `copy`), bound as
// the root, made inside the image: correct, but each sandbox then costs the base's size (about
// 1 GB, within its quota) and seconds.

export const filesystemModes = ['overlay', 'copy'] as const;
export type FilesystemMode = (typeof filesystemModes)[number];

/** Where the disk quota was applied (the sandbox's image and its size), or why it was not. */
export const diskLimit = z.union([
  z.object({ applied: z.literal(true), bytes: z.number().int().positive(), image: z.string() }),
  z.object({ applied: z.literal(false), reason: z.string() }),
]);
export type DiskLimit = z.infer<typeof diskLimit>;

/** What a new sandbox's layer gets: a quota in bytes, or the reason this host gives none. */
export type DiskPlan = { bytes: number } | { refused: string };

/** What of a sandbox's record says how its root is made (state.ts `SandboxRecord`). */
export interface Layer {
  filesystem: FilesystemMode;
  /** A template's read-only layers over the base, top first (template-store.ts); none from the base. */
  layers: string[];
  /** The base filesystem (overlay lower layer, or the source of the copy). */
  rootfs: string;
  disk: DiskLimit;
}

export interface Layout {
  dir: string;
  record: string;
  /** The sandbox's filesystem image, holding `upper/` and `work/`. */
  image: string;
  /** Where the image is mounted in the sandbox's private mount namespace (empty on the host). */
  disk: string;
  log: string;
}

export function layoutOf(baseDir: string, id: string): Layout {
  const dir = join(baseDir, id);
  return {
    dir,
    record: join(dir, 'sandbox.json'),
    image: join(dir, 'disk.ext4'),
    disk: join(dir, 'disk'),
    log: join(dir, 'init.log'),
  };
}

/** The overlay's upper and work directories: inside the mounted image, or on the host's disk. */
export function layerDirs(layout: Layout, disk: DiskLimit): { upper: string; work: string } {
  const root = disk.applied ? layout.disk : layout.dir;
  return { upper: join(root, 'upper'), work: join(root, 'work') };
}

/**
 * Where the wrapper mounts the sandbox's root, in its private mount namespace, before bwrap
 * binds it to `/`: a directory every uid may traverse (bwrap opens it as the sandbox's root, who
 * has no rights over a checkout under a private home), hidden by the mount from nobody else.
 */
export const stagingMountPoint = '/mnt';

/**
 * ext4 made in a few milliseconds whatever its size: no reserved blocks (root inside is not the
 * host's root, so could not use them), inode tables and journal left unwritten (sparse), the
 * kernel told not to zero them later either (`noinit_itable`), and freed blocks given back to the
 * host's disk (`discard`: the loop device punches holes in the image).
 */
const mkfsOptions = ['-q', '-F', '-m', '0', '-E', 'lazy_itable_init=1,lazy_journal_init=1,nodiscard'];
const imageMountOptions = 'loop,noinit_itable,discard';

/** Mounts "$2" (an image) at "$3" with options "$1", then drops the three arguments. */
const mountImage = 'mount -t ext4 -o "$1" "$2" "$3" && shift 3';

/**
 * Makes a new sandbox's writable layer (empty for an overlay, the whole base for a copy) within
 * its disk quota; where the image cannot be made, on the host's disk without one.
 */
export async function createFilesystem(
  layout: Layout,
  mode: FilesystemMode,
  lower: string,
  plan: DiskPlan,
): Promise<DiskLimit> {
  mkdirSync(layout.dir, { recursive: true, mode: 0o700 });
  if ('refused' in plan) {
    await createLayer(layout.dir, mode, lower);
    return { applied: false, reason: plan.refused };
  }
  const disk = { applied: true as const, bytes: plan.bytes, image: layout.image };
  try {
    await makeImage(layout, plan.bytes);
    if (mode === 'copy')
      await withImage(layout, [hostProgram('cp'), '-a', `${lower}/.`, `${layout.disk}/upper`]);
    return disk;
  } catch (error) {
    rmSync(layout.image, { force: true });
    rmSync(layout.disk, { recursive: true, force: true });
    await createLayer(layout.dir, mode, lower);
    return { applied: false, reason: `its filesystem image could not be made: ${lastLine(error)}` };
  }
}

/** What a failed host program printed last (its reason, usually), or the error's message. */
function lastLine(error: unknown): string {
  const text = error instanceof RunFailed ? error.tail : String(error);
  return text.trim().split('\n').at(-1) ?? '';
}

/** `upper/` under `root`: a copy of the base, or empty beside an overlay's `work/`. */
async function createLayer(root: string, mode: FilesystemMode, lower: string): Promise<void> {
  if (mode === 'copy')
    await runHost(hostProgram('cp'), ['-a', '--reflink=auto', `${lower}/.`, join(root, 'upper')]);
  else emptyLayer(root);
}

function emptyLayer(root: string): void {
  const upper = join(root, 'upper');
  mkdirSync(upper, { mode: 0o755 });
  mkdirSync(join(root, 'work'), { mode: 0o700 });
  // The overlay's `/` takes the upper directory's owner: root inside must own its root.
  chownSync(upper, sandboxRootOnHost, sandboxRootOnHost);
}

/**
 * A sparse file of `bytes`, made ext4 holding an empty layer: `mkfs -d` copies a skeleton in,
 * quicker than mounting the new filesystem to make the folders.
 */
async function makeImage(layout: Layout, bytes: number): Promise<void> {
  const skeleton = join(layout.dir, 'skeleton');
  try {
    mkdirSync(skeleton, { mode: 0o700 });
    emptyLayer(skeleton);
    sparseFile(layout.image, bytes);
    await runHost(hostProgram('mkfs.ext4'), [...mkfsOptions, '-d', skeleton, layout.image]);
    mkdirSync(layout.disk, { mode: 0o700 });
  } finally {
    rmSync(skeleton, { recursive: true, force: true });
  }
}

/** A new file of `bytes` that holds none yet (a hole from start to end). */
function sparseFile(path: string, bytes: number): void {
  const file = openSync(path, 'wx', 0o600);
  try {
    ftruncateSync(file, bytes);
  } finally {
    closeSync(file);
  }
}

/** Runs a host program with the image mounted at `disk/`, in a throwaway mount namespace. */
async function withImage(layout: Layout, argv: string[]): Promise<void> {
  await runHost(hostProgram('unshare'), [
    ...['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', `${mountImage} && exec "$@"`],
    ...['orrery-disk', imageMountOptions, layout.image, layout.disk, ...argv],
  ]);
}

/**
 * fork: the copy's writable layer is a copy of the source's (same base, same files, same quota).
 * The source is frozen meanwhile (runtime.ts); its image is flushed first, since what its
 * processes wrote may still sit in the page cache of the filesystem inside.
 */
export async function copyFilesystem(
  from: Layout,
  to: Layout,
  source: Layer & { init: { pid: number; startTime: string } | null },
): Promise<DiskLimit> {
  mkdirSync(to.dir, { recursive: true, mode: 0o700 });
  if (!source.disk.applied) {
    if (source.filesystem === 'overlay') mkdirSync(join(to.dir, 'work'), { mode: 0o700 });
    // -a keeps owners, modes, links and the overlay's own marks (whiteouts, opaque xattrs).
    const { upper } = layerDirs(from, source.disk);
    await runHost(hostProgram('cp'), ['-a', '--reflink=auto', upper, join(to.dir, 'upper')]);
    return source.disk;
  }
  await flushImage(from, source.init);
  // The image as it is on disk after the flush (a journal the mount replays); holes stay holes.
  await runHost(hostProgram('cp'), ['--sparse=always', from.image, to.image]);
  mkdirSync(to.disk, { mode: 0o700 });
  return { ...source.disk, image: to.image };
}

/**
 * syncfs through the sandbox's root (an overlay's syncs its upper filesystem) while mounted; once
 * its processes are gone, the wait until the kernel has let go of the image (unmounted, flushed).
 */
async function flushImage(layout: Layout, init: { pid: number; startTime: string } | null): Promise<void> {
  if (init !== null && processLives(init.pid, init.startTime)) {
    await runHost(hostProgram('sync'), ['-f', `/proc/${init.pid}/root/`]);
    return;
  }
  const released = await poll(
    async () => (await runHost(hostProgram('losetup'), ['-j', layout.image])) === '',
    {
      timeoutMs: 5000,
      intervalMs: 20,
    },
  );
  if (!released) throw new Error(`${layout.image} is still attached to a loop device`);
}

/**
 * A copy of the sandbox's writable layer (its changes over the base and its template) into
 * `target`, for a template of its files; the source is frozen meanwhile (runtime.ts). Read from
 * where the layer is: through bwrap's monitor (the init's parent, which stays in the mount
 * namespace where the image is mounted) while the sandbox runs; from the image mounted for the
 * copy once its processes are gone; or on the host's disk without a quota. -a keeps owners,
 * modes and the overlay's own marks (whiteouts, opaque folders), so the copy is a lower layer.
 */
export async function copyLayer(
  layout: Layout,
  source: Layer & { init: { pid: number; startTime: string } | null },
  target: string,
): Promise<void> {
  const copy = (from: string) => ['-a', '--reflink=auto', `${from}/.`, target];
  mkdirSync(target, { mode: 0o755 });
  if (!source.disk.applied) {
    await runHost(hostProgram('cp'), copy(layerDirs(layout, source.disk).upper));
    return;
  }
  await flushImage(layout, source.init);
  const monitor =
    source.init !== null && processLives(source.init.pid, source.init.startTime)
      ? parentPid(source.init.pid)
      : undefined;
  if (monitor !== undefined) {
    await runHost(hostProgram('cp'), copy(`/proc/${monitor}/root${layout.disk}/upper`));
    return;
  }
  await withImage(layout, [hostProgram('cp'), ...copy(`${layout.disk}/upper`)]);
}

export function removeFilesystem(layout: Layout): void {
  rmSync(layout.dir, { recursive: true, force: true });
}

/**
 * How a sandbox with its own id range sees its files (user-namespace.ts): through idmapped
 * clones `helper` mounts, with the id map of the user namespace `userns`.
 */
export interface Idmap {
  helper: string;
  userns: string;
}

/**
 * The command that mounts the root at `stagingMountPoint` in a new private mount namespace and
 * then runs `then`: first the sandbox's image at `disk/` (a loop device that goes with the
 * namespace); with `idmap`, an idmapped clone of each layer under `mapped/` (the originals stay
 * as they are, so a copy of the layer keeps the owners on disk); then the overlay of those, or
 * the copy's bind. Overlay options take commas and colons as separators, so paths must not.
 */
export function mountRootArgv(layout: Layout, layer: Layer, then: string[], idmap?: Idmap): string[] {
  const overlay = layer.filesystem === 'overlay';
  const lowers = overlay ? [...layer.layers, layer.rootfs] : [];
  const root = layer.disk.applied ? layout.disk : layout.dir;
  const shown = (path: string, name: string) =>
    idmap === undefined ? path : join(layout.dir, 'mapped', name);
  const [shownLowers, shownRoot] = [
    lowers.map((path, index) => shown(path, `lower-${index}`)),
    shown(root, 'layer'),
  ];
  const idmapArgs =
    idmap === undefined
      ? []
      : [
          idmap.helper,
          idmap.userns,
          ...lowers.flatMap((path, index) => [path, shownLowers[index]!]),
          root,
          shownRoot,
        ];
  for (const target of idmap === undefined ? [] : [...shownLowers, shownRoot])
    mkdirSync(target, { recursive: true });
  const [upper, work] = [join(shownRoot, 'upper'), join(shownRoot, 'work')];
  const image = layer.disk.applied ? [imageMountOptions, layout.image, layout.disk] : [];
  const script =
    (layer.disk.applied ? `${mountImage} && ` : '') +
    (idmapArgs.length > 0
      ? `${idmapArgs.map((_, index) => `"\${${index + 1}}"`).join(' ')} && shift ${idmapArgs.length} && `
      : '') +
    (overlay ? 'mount -t overlay overlay -o "$1" "$2"' : 'mount --bind "$1" "$2"') +
    ' && shift 2 && exec "$@"';
  const source = overlay
    ? `lowerdir=${shownLowers.join(':')},upperdir=${upper},workdir=${work},index=off,metacopy=off`
    : upper;
  for (const path of overlay ? [...shownLowers, upper, work] : []) {
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
    ...image,
    ...idmapArgs,
    source,
    stagingMountPoint,
    ...then,
  ];
}

/**
 * Why this host cannot give each sandbox a filesystem image (no mkfs.ext4, no loop devices, no
 * ext4), found by making and mounting a small one in a throwaway mount namespace; undefined if
 * it can.
 */
export function diskImagesRefused(scratchParent: string): string | undefined {
  let mkfs: string;
  try {
    mkfs = hostProgram('mkfs.ext4');
  } catch {
    return "mkfs.ext4 is not installed (Debian's e2fsprogs)";
  }
  mkdirSync(scratchParent, { recursive: true });
  const scratch = mkdtempSync(join(scratchParent, '.disk-probe-'));
  try {
    const [image, disk] = [join(scratch, 'image'), join(scratch, 'disk')];
    mkdirSync(disk);
    sparseFile(image, 16 * 1024 * 1024);
    const made = spawnSync(mkfs, [...mkfsOptions, image], { env: hostEnv, encoding: 'utf8' });
    if (made.status !== 0) return `mkfs.ext4 failed: ${made.stderr.trim()}`;
    const mounted = spawnSync(
      hostProgram('unshare'),
      [
        ...['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', mountImage],
        ...['orrery-disk', imageMountOptions, image, disk],
      ],
      { env: hostEnv, encoding: 'utf8' },
    );
    if (mounted.status !== 0) return `a filesystem image cannot be mounted here: ${mounted.stderr.trim()}`;
    return undefined;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
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
