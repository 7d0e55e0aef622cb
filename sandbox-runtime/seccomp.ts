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

// The syscall filter on every process of a sandbox: Docker's default seccomp profile, as Docker
// publishes it (the Go module github.com/moby/profiles/seccomp, fetched through the Go module
// proxy), compiled by libseccomp (Debian's python3-seccomp, compile-profile.py) for the
// capabilities Docker grants a container. So root inside a sandbox, who holds every capability
// of its user namespace, still cannot mount, unshare, setns, keyctl, ptrace... as in a container.
//
// Two ways in, one filter: the init gets it from bwrap (`--seccomp`), and a command entering a
// running sandbox (exec, files, the desktop) from seccomp-exec.c, a static program nsenter runs
// inside the sandbox's root, which loads the filter and execs the command. Both find it in the
// sandbox at `/run/orrery`, a read-only bind the host mounts before the sandbox's user namespace
// exists: the kernel locks it there (a sandbox cannot unmount it or make it writable, and the
// filter refuses mount calls anyway).
//
// Built once per machine with the base filesystem (`npm run stack -- start`), cached beside it
// under a digest of its recipe; the runtime only finds it (`builtSeccomp`).

export const seccompRecipe = {
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

/** Where a sandbox sees the filter and its loader (a read-only bind of the built folder). */
export const sandboxSeccompDir = '/run/orrery';
export const seccompFiles = {
  filter: 'seccomp.bpf',
  loader: 'seccomp-exec',
  profile: 'profile.json',
} as const;

const sources = { compiler: 'compile-profile.py', loader: 'seccomp-exec.c' } as const;
const sourceDir = join(import.meta.dirname, 'seccomp');
const marker = '.orrery-seccomp.json';

/** What building the filter needs from Debian's packages beyond the runtime's own. */
const buildPackages: readonly DebianPackage[] = [
  { pkg: 'python3-seccomp', present: () => pythonHasSeccomp() },
  { pkg: 'gcc', present: () => onPath('gcc') },
  { pkg: 'libc6-dev', present: () => staticLibcPresent() },
];

export function seccompVersion(): string {
  const hash = createHash('sha256').update(JSON.stringify(seccompRecipe));
  for (const file of Object.values(sources)) hash.update(readFileSync(join(sourceDir, file)));
  return `seccomp-${hash.digest('hex').slice(0, 12)}`;
}

/** Builds the filter and its loader if this version is not cached in `cacheDir`; answers the folder. */
export async function ensureSeccomp(cacheDir: string, log: (line: string) => void): Promise<string> {
  const target = join(cacheDir, seccompVersion());
  if (existsSync(join(target, marker))) return target;
  await ensureDebianPackages(buildPackages, log);
  const building = `${target}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true, mode: 0o755 });
  log(`building the sandboxes' seccomp filter (${seccompVersion()}) into ${target}`);
  try {
    copyFileSync(await downloadProfile(log), join(building, seccompFiles.profile));
    await runHost(
      hostProgram('python3'),
      [
        join(sourceDir, sources.compiler),
        join(building, seccompFiles.profile),
        join(building, seccompFiles.filter),
        ...seccompRecipe.capabilities,
      ],
      log,
    );
    await runHost(
      hostProgram('gcc'),
      ['-static', '-s', '-O2', '-o', join(building, seccompFiles.loader), join(sourceDir, sources.loader)],
      log,
    );
    writeFileSync(
      join(building, marker),
      JSON.stringify({ recipe: seccompRecipe, version: seccompVersion() }),
    );
    renameSync(building, target);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(join(target, marker))) throw error;
  }
  return target;
}

/** The built folder; a request never builds (a missing filter says how to build it). */
export function builtSeccomp(cacheDir: string): string {
  const target = join(cacheDir, seccompVersion());
  if (existsSync(join(target, marker))) return target;
  throw new Error(
    `the sandboxes' seccomp filter ${seccompVersion()} is not built in ${cacheDir}; ` +
      '`npm run stack -- start` builds it',
  );
}

const downloaded = z.object({ Dir: z.string() });

/** Docker's profile from the Go module proxy, as `go mod download` verifies it (go.sum's database). */
async function downloadProfile(log: (line: string) => void): Promise<string> {
  const { module, version, file } = seccompRecipe.profile;
  const scratch = mkdtempSync(join(tmpdir(), 'orrery-seccomp-'));
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

function staticLibcPresent(): boolean {
  if (!onPath('gcc')) return false;
  const found = spawnSync('gcc', ['-print-file-name=libc.a'], {
    env: hostEnv,
    encoding: 'utf8',
  }).stdout.trim();
  return found.startsWith('/') && existsSync(found);
}
