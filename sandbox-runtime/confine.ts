import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { type DebianPackage, ensureDebianPackages } from '../platform/debian-packages.ts';
import { runToEnd } from '../platform/run-to-end.ts';
import { hostEnv, hostProgram, runHost } from './host.ts';

// What every process of a sandbox is confined to, as a container of Docker's is: Docker's
// default capabilities, and Docker's default seccomp profile with no_new_privs. Root inside holds
// every capability of its user namespace; confined, it keeps only Docker's 14, so it cannot
// change its network namespace's firewall or routes (network.ts), and the filter refuses mount,
// unshare, setns, keyctl, bpf... whatever the capabilities would allow.
//
// The profile is Docker's own (the Go module github.com/moby/profiles/seccomp, through the Go
// module proxy), compiled by libseccomp (Debian's python3-seccomp, confine/compile-profile.py)
// for those capabilities. Two ways in, one confinement: the init gets it from bwrap
// (`--cap-drop`/`--cap-add`, `--seccomp`), and a command entering a running sandbox (exec, files,
// the desktop) from confine/confine.c, a static program nsenter runs inside the sandbox's root,
// which drops the capabilities (libcap), loads the filter and execs the command. Both find their
// files at `/run/orrery`, a read-only bind the host mounts before the sandbox's user namespace
// exists: the kernel locks it there (a sandbox cannot unmount it or make it writable).
//
// Built once per machine with the base filesystem (`npm run stack -- start`), cached beside it
// under a digest of its recipe; the runtime only finds it (`builtConfinement`).

export const confinementRecipe = {
  profile: { module: 'github.com/moby/profiles/seccomp', version: 'v0.3.0', file: 'default.json' },
  /** Docker's default capability set (moby's oci/caps/defaults.go): what the profile is resolved for. */
  capabilities: [
    'CAP_CHOWN',
    'CAP_DAC_OVERRIDE',
    'CAP_FSETID',
    'CAP_FOWNER',
    'CAP_MKNOD',
    'CAP_NET_RAW',
    'CAP_SETGID',
    'CAP_SETUID',
    'CAP_SETFCAP',
    'CAP_SETPCAP',
    'CAP_NET_BIND_SERVICE',
    'CAP_SYS_CHROOT',
    'CAP_KILL',
    'CAP_AUDIT_WRITE',
  ],
};

/** The capability list as the loader and bwrap take it. */
export const confinedCapabilities = confinementRecipe.capabilities.join(',');

/** Where a sandbox sees the filter and the loader (a read-only bind of the built folder). */
export const sandboxConfinementDir = '/run/orrery';
export const confinementFiles = {
  filter: 'seccomp.bpf',
  loader: 'confine',
  profile: 'profile.json',
  /** Not the confinement's: the host's helper for a sandbox's own id range (user-namespace.ts), built alike. */
  idmapMount: 'idmap-mount',
} as const;

const sources = { compiler: 'compile-profile.py', loader: 'confine.c', idmapMount: 'idmap-mount.c' } as const;
const sourceDir = join(import.meta.dirname, 'confine');
const marker = '.orrery-confinement.json';

/** What building the filter needs from Debian's packages beyond the runtime's own. */
const buildPackages: readonly DebianPackage[] = [
  { pkg: 'python3-seccomp', present: () => pythonHasSeccomp() },
  { pkg: 'gcc', present: () => onPath('gcc') },
  { pkg: 'libcap-dev', present: () => staticLibraryPresent('libcap.a') },
  { pkg: 'libc6-dev', present: () => staticLibraryPresent('libc.a') },
];

export function confinementVersion(): string {
  const hash = createHash('sha256').update(JSON.stringify(confinementRecipe));
  for (const file of Object.values(sources)) hash.update(readFileSync(join(sourceDir, file)));
  return `confinement-${hash.digest('hex').slice(0, 12)}`;
}

/** Builds the filter and its loader if this version is not cached in `cacheDir`; answers the folder. */
export async function ensureConfinement(cacheDir: string, log: (line: string) => void): Promise<string> {
  const target = join(cacheDir, confinementVersion());
  if (existsSync(join(target, marker))) return target;
  await ensureDebianPackages(buildPackages, log);
  const building = `${target}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true, mode: 0o755 });
  log(
    `building the sandboxes' confinement (${confinementVersion()}: capabilities, seccomp filter) into ${target}`,
  );
  try {
    copyFileSync(await downloadProfile(log), join(building, confinementFiles.profile));
    await runHost(
      hostProgram('python3'),
      [
        join(sourceDir, sources.compiler),
        join(building, confinementFiles.profile),
        join(building, confinementFiles.filter),
        ...confinementRecipe.capabilities,
      ],
      log,
    );
    await runHost(
      hostProgram('gcc'),
      [
        '-static',
        '-s',
        '-O2',
        '-o',
        join(building, confinementFiles.loader),
        join(sourceDir, sources.loader),
        '-lcap',
      ],
      log,
    );
    const idmapMount = join(building, confinementFiles.idmapMount);
    await runHost(
      hostProgram('gcc'),
      ['-static', '-s', '-O2', '-o', idmapMount, join(sourceDir, sources.idmapMount)],
      log,
    );
    writeFileSync(
      join(building, marker),
      JSON.stringify({ recipe: confinementRecipe, version: confinementVersion() }),
    );
    renameSync(building, target);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(join(target, marker))) throw error;
  }
  return target;
}

/** The built folder; a request never builds (a missing filter says how to build it). */
export function builtConfinement(cacheDir: string): string {
  const target = join(cacheDir, confinementVersion());
  if (existsSync(join(target, marker))) return target;
  throw new Error(
    `the sandboxes' confinement ${confinementVersion()} is not built in ${cacheDir}; ` +
      '`npm run stack -- start` builds it',
  );
}

const downloaded = z.object({ Dir: z.string() });

/** Docker's profile from the Go module proxy, as `go mod download` verifies it (go.sum's database). */
async function downloadProfile(log: (line: string) => void): Promise<string> {
  const { module, version, file } = confinementRecipe.profile;
  const scratch = mkdtempSync(join(tmpdir(), 'orrery-confinement-'));
  try {
    const env = {
      ...process.env,
      PATH: `${process.env.PATH ?? hostEnv.PATH}:/usr/local/go/bin`,
      GOFLAGS: '-mod=mod',
    };
    const go = spawnSync('/bin/sh', ['-c', 'command -v go'], { env, encoding: 'utf8' }).stdout.trim();
    if (go === '') {
      await ensureDebianPackages([{ pkg: 'golang-go', present: () => false }], log);
    }
    const answer = await runToEnd(go || '/usr/bin/go', ['mod', 'download', '-json', `${module}@${version}`], {
      env,
      cwd: scratch, // outside any module, so no go.mod around changes what is downloaded
      described: `go mod download ${module}@${version}`,
    });
    return join(downloaded.parse(JSON.parse(answer)).Dir, file);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function onPath(name: string): boolean {
  return spawnSync('/bin/sh', ['-c', `command -v ${name}`], { env: hostEnv }).status === 0;
}

function pythonHasSeccomp(): boolean {
  return (
    spawnSync('/usr/bin/python3', ['-c', 'import seccomp'], { env: hostEnv, stdio: 'ignore' }).status === 0
  );
}

function staticLibraryPresent(name: string): boolean {
  if (!onPath('gcc')) return false;
  const found = spawnSync('gcc', [`-print-file-name=${name}`], {
    env: hostEnv,
    encoding: 'utf8',
  }).stdout.trim();
  return found.startsWith('/') && existsSync(found);
}
