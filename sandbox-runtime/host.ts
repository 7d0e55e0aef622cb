import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { DebianPackage } from '../platform/debian-packages.ts';
import { RunFailed, runToEnd } from '../platform/run-to-end.ts';

// Small facts about host processes and programs, shared by the runtime's modules.

const execFileAsync = promisify(execFile);

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The environment host programs run with: never the caller's, never a sandbox user's. */
export const hostEnv = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' };

/**
 * What the runtime runs on the host from Debian's packages beyond the essential ones (util-linux's
 * unshare and nsenter, coreutils), installed by `npm run stack -- start` with the base filesystem
 * (rootfs.ts, ensureRootfs), not by the API. The desktop's packages go inside the base
 * (desktop/packages.ts), not on the host.
 */
export const hostPackages: readonly DebianPackage[] = [
  { pkg: 'bubblewrap', present: () => onHostPath('bwrap') },
  { pkg: 'debootstrap', present: () => onHostPath('debootstrap') },
  { pkg: 'e2fsprogs', present: () => onHostPath('mkfs.ext4') },
  // A sandbox's way out (network.ts): the user-space network stack, its firewall, the host's addresses.
  { pkg: 'slirp4netns', present: () => onHostPath('slirp4netns') },
  { pkg: 'nftables', present: () => onHostPath('nft') },
  { pkg: 'iproute2', present: () => onHostPath('ip') },
  // What a sandbox reads in /proc: its own memory, cpus, load and uptime (proc-views.ts).
  { pkg: 'lxcfs', present: () => onHostPath('lxcfs') },
];

function onHostPath(name: string): boolean {
  return hostEnv.PATH.split(':').some((dir) => existsSync(join(dir, name)));
}

const foundPrograms = new Map<string, string>();

/**
 * A host program's absolute path, so no PATH a caller sets can swap it: the first executable
 * file of that name on the host's PATH, as `command -v` finds it. Looked up in this process, not
 * by a shell: it is asked on every exec, and a child process run synchronously would hold up
 * every other call of the sandbox host meanwhile. Kept once found (a program installed later,
 * by the stack's start, is found then).
 */
export function hostProgram(name: string): string {
  const known = foundPrograms.get(name);
  if (known !== undefined) return known;
  for (const dir of hostEnv.PATH.split(':')) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      if (!statSync(path).isFile()) continue;
    } catch {
      continue;
    }
    foundPrograms.set(name, path);
    return path;
  }
  throw new Error(
    `${name} is not installed; \`npm run stack -- start\` installs what the sandbox runtime ` +
      'needs (sandbox-runtime/host.ts)',
  );
}

/**
 * The process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat): with the pid
 * it names one process for good, so a recycled pid is never taken for a sandbox's init.
 */
export function processStartTime(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/** Whether the process exists and has not died (a zombie waiting for its parent has died). */
export function processLives(pid: number, startTime: string): boolean {
  const fields = statFields(pid);
  return fields !== undefined && fields[19] === startTime && fields[0] !== 'Z' && fields[0] !== 'X';
}

/** The process's parent, from /proc (undefined once it is gone). */
export function parentPid(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields === undefined ? undefined : Number(fields[1]);
}

/** /proc/<pid>/stat from field 3 (the state) on. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from its end.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** One mount of this process's mount namespace, as /proc/self/mountinfo lists it. */
export interface Mount {
  mountPoint: string;
  fsType: string;
  /** The superblock's options (`rw,nsdelegate,memory_recursiveprot`), which a remount replaces. */
  superOptions: string[];
}

/** The mount table (`mountinfo`: this process's, unless given), in its order. */
export function mountTable(mountinfo = readFileSync('/proc/self/mountinfo', 'utf8')): Mount[] {
  return mountinfo
    .trim()
    .split('\n')
    .flatMap((line) => {
      // Mount fields, then after ` - ` the superblock's: type, source, options.
      const [mountFields, superFields] = line.split(' - ');
      const mountPoint = mountFields?.split(' ')[4];
      const [fsType, , superOptions = ''] = (superFields ?? '').split(' ');
      return mountPoint === undefined || fsType === undefined
        ? []
        : [{ mountPoint, fsType, superOptions: superOptions.split(',') }];
    });
}

export function processName(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * What a host program, found on the host's PATH, printed on its stdout alone (its stderr apart, so
 * machine-readable output such as `ip -j` parses); rejects if it failed to run or exited non-zero.
 */
export async function hostOutput(program: string, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(hostProgram(program), args, { env: hostEnv });
  return stdout;
}

/**
 * Runs a host program to its end. Only the last few KiB of its output are kept (a debootstrap or
 * an apt run prints megabytes): they are what a failure shows, and what `log` gets then.
 */
export async function runHost(
  command: string,
  args: string[],
  log?: (line: string) => void,
): Promise<string> {
  try {
    return await runToEnd(command, args, { env: hostEnv, keepChars: 4000 });
  } catch (error) {
    if (error instanceof RunFailed) log?.(error.tail);
    throw error;
  }
}
