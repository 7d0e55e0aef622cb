import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { config } from '../platform/config.ts';
import { ensureDebianPackages } from '../platform/debian-packages.ts';
import { ensureConfinement } from './confine.ts';
import { desktopPackages, installPackages } from './desktop/packages.ts';
import { hostPackages, hostProgram, runHost } from './host.ts';
import { slirp } from './network.ts';
import { sandboxIdMap } from './user-namespace.ts';

// The base root filesystem every sandbox starts from: a minimal Debian built once with
// debootstrap, owned by the sandboxes' id range, and cached outside the checkout, in
// `~/.cache/orrery/rootfs/<version>` (or under $XDG_CACHE_HOME), so a second run builds nothing.
// The version is a digest of the recipe: changing the suite, the packages or the id range builds
// a new one beside the old. Sandboxes only read it (it is the overlay's lower layer).

export const rootfsRecipe = {
  suite: 'bookworm',
  variant: 'minbase',
  /** Beyond minbase: `ps` and `pkill`. */
  packages: ['procps'],
  /** Then installed by apt: the desktop's X server, VNC, xdotool, Chromium… (desktop/packages.ts). */
  desktopPackages,
  idMap: sandboxIdMap,
  /**
   * 2: resolv.conf names slirp's DNS forwarder (network.ts). 3: hard-linked files shifted once.
   * 4: font caches made after every package (packages.ts `refreshFontCaches`).
   */
  revision: 4,
};

const marker = '.orrery-rootfs.json';

export function rootfsVersion(recipe = rootfsRecipe): string {
  const digest = createHash('sha256').update(JSON.stringify(recipe)).digest('hex').slice(0, 12);
  return `${recipe.suite}-${recipe.variant}-${digest}`;
}

/** ORRERY_SANDBOX_ROOTFS_DIR, else the user's cache (a node's host path on Kubernetes: the chart sets it). */
export function defaultRootfsCache(): string {
  return (
    config().fleet.host.rootfsDir ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'orrery', 'rootfs')
  );
}

/**
 * Installs the runtime's host packages (host.ts) and builds the base filesystem and the sandboxes'
 * confinement (confine.ts: capabilities, seccomp filter) if these versions are not cached yet;
 * answers the filesystem's path. Run by `npm run stack -- start`, the test harness, and a sandbox
 * host as it starts (a new machine's first host builds it): it may take minutes.
 */
export async function ensureRootfs(cacheDir: string, log: (line: string) => void): Promise<string> {
  await ensureDebianPackages(hostPackages, log);
  await ensureConfinement(cacheDir, log);
  const target = join(cacheDir, rootfsVersion());
  if (existsSync(join(target, marker))) return target;
  const building = `${target}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(cacheDir, { recursive: true });
  const started = Date.now();
  log(`building the sandboxes' base filesystem (${rootfsVersion()}) with debootstrap into ${target}`);
  try {
    await debootstrap(building, log);
    await installPackages(building, desktopPackages, log);
    tidy(building);
    shiftOwnership(building, sandboxIdMap.outside);
    const seconds = Math.round((Date.now() - started) / 1000);
    writeFileSync(join(building, marker), JSON.stringify({ recipe: rootfsRecipe, builtInSeconds: seconds }));
    renameSync(building, target);
    log(`base filesystem ready in ${seconds} s`);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    // Another process may have finished the same version meanwhile; then use theirs.
    if (!existsSync(join(target, marker))) throw error;
  }
  return target;
}

/**
 * The base filesystem's path, as `ensureRootfs` built it. The runtime only reads it: a request
 * never installs or builds (a missing base is an error that says how to build it).
 */
export function builtRootfs(cacheDir: string): string {
  const target = join(cacheDir, rootfsVersion());
  if (existsSync(join(target, marker))) return target;
  throw new Error(
    `the sandboxes' base filesystem ${rootfsVersion()} is not built in ${cacheDir}; ` +
      '`npm run stack -- start` builds it',
  );
}

function debootstrap(dir: string, log: (line: string) => void): Promise<void> {
  const { suite, variant, packages } = rootfsRecipe;
  const args = [`--variant=${variant}`, `--include=${packages.join(',')}`, suite, dir, debianMirror()];
  return runHost(hostProgram('debootstrap'), args, log).then(() => undefined);
}

/** The mirror apt already uses on this host (so a proxy or a local mirror is honoured). */
export function debianMirror(): string {
  const sources = ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list'];
  for (const file of sources.filter(existsSync)) {
    const text = readFileSync(file, 'utf8');
    const uri =
      /^URIs:\s*(\S+\/debian)\/?\s*$/m.exec(text) ??
      /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\/?\s/m.exec(text);
    if (uri?.[1] !== undefined) return uri[1];
  }
  return 'http://deb.debian.org/debian';
}

/** Drops the download caches and what debootstrap copied from the host (its name, its DNS). */
function tidy(dir: string): void {
  for (const cache of ['var/cache/apt/archives', 'var/lib/apt/lists']) {
    for (const entry of readdirSync(join(dir, cache))) {
      if (entry !== 'partial' && entry !== 'lock')
        rmSync(join(dir, cache, entry), { recursive: true, force: true });
    }
  }
  writeFileSync(join(dir, 'etc/hostname'), 'sandbox\n');
  writeFileSync(join(dir, 'etc/hosts'), '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n');
  // The sandbox's resolver is slirp's forwarder (network.ts), whatever the host's is.
  writeFileSync(join(dir, 'etc/resolv.conf'), `nameserver ${slirp.dns}\n`);
}

/**
 * Moves every file's owner and group up by `base`, so the files root owned are owned by root
 * inside a sandbox. chown clears setuid bits, so the mode is written back after it. A file with
 * several names (hard links: perl, gunzip, Mesa's drivers) is one inode, moved once.
 */
export function shiftOwnership(path: string, base: number, moved = new Set<string>()): void {
  const stat = lstatSync(path);
  if (stat.nlink > 1 && !stat.isDirectory()) {
    if (moved.has(`${stat.dev}:${stat.ino}`)) return;
    moved.add(`${stat.dev}:${stat.ino}`);
  }
  lchownSync(path, stat.uid + base, stat.gid + base);
  if (stat.isSymbolicLink()) return;
  chmodSync(path, stat.mode & 0o7777);
  if (stat.isDirectory())
    for (const entry of readdirSync(path)) shiftOwnership(join(path, entry), base, moved);
}
