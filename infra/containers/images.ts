import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { runToEnd } from '../../platform/run-to-end.ts';
import { debianMirror } from '../../sandbox-runtime/rootfs.ts';
import type { Engine } from './engine.ts';

// The project's images, built on the engine without a registry: a Debian base made by debootstrap
// and imported once, and the Orrery image (Containerfile) on it, whose layers the engine caches.

export const baseImage = 'localhost/orrery-base:bookworm';
export const orreryImage = 'localhost/orrery:dev';

/**
 * Debian bookworm, minbase, and the shared libraries the Kafka client's addon links (OpenSSL,
 * SASL; zlib, zstd, lz4 and libstdc++ come with minbase) and the authorities TLS trusts. Its
 * digest is the image's label: change the recipe and the base is made again.
 */
export const baseRecipe = {
  suite: 'bookworm',
  variant: 'minbase',
  packages: ['ca-certificates', 'libssl3', 'libsasl2-2'],
  revision: 1,
};

const recipeLabel = 'org.orrery.recipe';

export function recipeDigest(recipe = baseRecipe): string {
  return createHash('sha256').update(JSON.stringify(recipe)).digest('hex').slice(0, 12);
}

/** The repository's root: the Orrery image's build context. */
const root = resolve(import.meta.dirname, '..', '..');

function cli(engine: Engine, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(engine.cli, args, {
    encoding: 'utf8',
    env: engine.cli === 'docker' ? { ...process.env, DOCKER_HOST: engine.dockerHost } : process.env,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The image's label `name`, or undefined when the image is not there. */
function imageLabel(engine: Engine, image: string, name: string): string | undefined {
  const result = cli(engine, ['image', 'inspect', '--format', `{{ index .Config.Labels "${name}" }}`, image]);
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** Builds both images (each skipped or cached when nothing changed); answers seconds per step. */
export async function ensureImages(
  engine: Engine,
  log: (line: string) => void,
): Promise<Record<string, number>> {
  const timings: Record<string, number> = {};
  let started = Date.now();
  const made = await ensureBaseImage(engine, log);
  timings[made ? 'base image (made)' : 'base image (present)'] = (Date.now() - started) / 1000;
  started = Date.now();
  await buildOrreryImage(engine, log);
  timings['orrery image'] = (Date.now() - started) / 1000;
  for (const [step, seconds] of Object.entries(timings)) log(`${step}: ${seconds.toFixed(1)} s`);
  return timings;
}

/**
 * `debootstrap --variant=minbase bookworm` from the mirror apt uses here, piped as a tar stream
 * into `podman import`. Made once: an image with this recipe's label is reused. True when made.
 */
export async function ensureBaseImage(engine: Engine, log: (line: string) => void): Promise<boolean> {
  const digest = recipeDigest();
  if (imageLabel(engine, baseImage, recipeLabel) === digest) return false;
  if (engine.cli !== 'podman')
    throw new Error(`${baseImage} is made with podman import; install podman, or load the image yourself`);
  const work = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'orrery', 'containers');
  const dir = join(work, `base-${digest}.building-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const { suite, variant, packages } = baseRecipe;
  const mirror = debianMirror();
  log(`making ${baseImage} with debootstrap (${variant} ${suite} from ${mirror}); once, about a minute`);
  try {
    await piped('debootstrap', [
      `--variant=${variant}`,
      `--include=${packages.join(',')}`,
      suite,
      dir,
      mirror,
    ]);
    tidy(dir);
    await piped('sh', [
      '-c',
      'tar --numeric-owner -C "$0" -cf - . | podman import --change "$1" --change "$2" - "$3"',
      dir,
      `LABEL ${recipeLabel}=${digest}`,
      'CMD ["/bin/bash"]',
      baseImage,
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return true;
}

/** What debootstrap leaves that an image does not need: apt's downloads and lists, docs, manuals. */
function tidy(dir: string): void {
  for (const folder of ['var/cache/apt/archives', 'var/lib/apt/lists', 'usr/share/doc', 'usr/share/man']) {
    for (const entry of readdirSync(join(dir, folder))) {
      if (entry !== 'partial' && entry !== 'lock')
        rmSync(join(dir, folder, entry), { recursive: true, force: true });
    }
  }
  rmSync(join(dir, 'var/cache/apt/pkgcache.bin'), { force: true });
  rmSync(join(dir, 'var/cache/apt/srcpkgcache.bin'), { force: true });
}

/** The Orrery image, through the engine; its layers are cached, so a rebuild takes seconds. */
export async function buildOrreryImage(engine: Engine, log: (line: string) => void): Promise<void> {
  // The checkout's node_modules may be a link (a worktree sharing another's): give its real path.
  await buildImage(engine, log, {
    file: join(root, 'infra', 'containers', 'Containerfile'),
    image: orreryImage,
    context: root,
    contexts: { modules: realpathSync(join(root, 'node_modules')) },
  });
}

export interface ImageBuild {
  file: string;
  image: string;
  context: string;
  /** Further build contexts by name (`COPY --from=<name>`). */
  contexts?: Record<string, string>;
  /** Build arguments (`ARG`). */
  args?: Record<string, string>;
}

/**
 * One image from its Containerfile, on the Debian base. The host's network: a build's
 * `apt-get` reaches the mirror the host's apt uses, as the host does.
 */
export async function buildImage(
  engine: Engine,
  log: (line: string) => void,
  build: ImageBuild,
): Promise<void> {
  log(`building ${build.image} (${build.file.slice(root.length + 1)})`);
  const args = [
    'build',
    '--network=host',
    '--file',
    build.file,
    ...Object.entries(build.contexts ?? {}).flatMap(([name, dir]) => ['--build-context', `${name}=${dir}`]),
    ...Object.entries(build.args ?? {}).flatMap(([name, value]) => ['--build-arg', `${name}=${value}`]),
    '--tag',
    build.image,
    build.context,
  ];
  await piped(engine.cli, engine.cli === 'podman' ? ['--log-level=error', ...args] : args, {
    DOCKER_HOST: engine.dockerHost,
  });
}

/** Runs a command to its end, keeping the last of its output for the error when it fails. */
function piped(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return runToEnd(command, args, {
    env: { ...process.env, ...env },
    described: `${command} ${args.slice(0, 3).join(' ')}…`,
  });
}
