import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { poll } from '../platform/poll.ts';
import { joinDirs } from './cgroups.ts';
import { confinementFiles, confinementRecipe, sandboxConfinementDir } from './confine.ts';
import { hostEnv, hostProgram, processLives, processName, processStartTime } from './host.ts';
import { type ProcViews, procViewsBwrapArgs } from './proc-views.ts';
import { type Idmap, type Layout, mountRootArgv, stagingMountPoint } from './sandbox-fs.ts';
import type { SandboxRecord } from './state.ts';
import { idmapMountMap, sandboxMap, withUserNamespace } from './user-namespace.ts';

// A sandbox is a process tree whose root is its init, pid 1 of its own pid namespace, started
// inside bubblewrap with its own user, mount, pid, ipc, uts, cgroup and network namespaces:
//
//   sh (joins the sandbox's cgroups)
//   └ unshare --mount (private mount namespace: mounts the sandbox's root at /mnt, nobody sees it,
//     │                its layers shown in the sandbox's id range: user-namespace.ts)
//     └ sh (binds the confinement's folder read-only at /mnt/run/orrery: confine.ts)
//       └ nsenter --user (the sandbox's user namespace, as root inside = its range's first uid)
//         └ bwrap (new namespaces; binds /mnt as /, fresh /proc with lxcfs's files over some
//           │      (proc-views.ts), and /dev; the old root is dropped; Docker's capabilities,
//           │      no_new_privs and the seccomp filter, from fd 4)
//           └ orrery-init, pid 1: ignores every signal it can, reaps orphans, never exits
//
// Each link execs the next, so the spawned process ends as bwrap's monitor. The init does nothing
// but stay: later processes (exec, files, the desktop) join its namespaces through nsenter and
// live in the sandbox after their caller returns. It is started detached, so it outlives the
// API process. Killing pid 1 tears down the whole pid namespace (the kernel kills the rest).

const initName = 'orrery-init';

/**
 * The sandbox's pid 1: with SIGCHLD ignored, the kernel reaps orphans for it. Once up it lets go
 * of what it inherited from the host (the log file bwrap's errors went to, a pipe of bwrap's),
 * so no process inside can reach a host file through /proc/1/fd.
 */
const initScript =
  `use POSIX (); $0 = "${initName}"; $SIG{CHLD} = "IGNORE"; ` +
  '$SIG{$_} = "IGNORE" for qw(HUP INT TERM QUIT USR1 USR2 PIPE ALRM); ' +
  'open(STDOUT, ">", "/dev/null"); open(STDERR, ">", "/dev/null"); POSIX::close($_) for 3 .. 1023; ' +
  'sleep while 1;';

const sandboxPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The fd bwrap reads the compiled filter from (after the info fd, 3). */
const seccompFd = 4;

/** Docker's default capabilities only (confine.ts), as bwrap takes them. */
const capabilityArgs = [
  '--cap-drop',
  'ALL',
  ...confinementRecipe.capabilities.flatMap((name) => ['--cap-add', name]),
];

function bwrapArgs(id: string, filtered: boolean, views: ProcViews): string[] {
  return [
    ...(filtered ? [...capabilityArgs, '--seccomp', String(seccompFd)] : []),
    ...['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-net', '--unshare-cgroup'],
    ...['--hostname', id, '--bind', stagingMountPoint, '/', '--proc', '/proc', '--dev', '/dev'],
    ...procViewsBwrapArgs(views),
    ...['--as-pid-1', '--chdir', '/', '--info-fd', '3', '--clearenv', '--setenv', 'PATH', sandboxPath],
  ];
}

/** `argv` run by a shell that first moves itself into `dirs` (so every descendant starts there). */
export function joinCgroupsArgv(dirs: string[], argv: string[]): string[] {
  const script =
    'while [ "$1" != -- ]; do echo $$ > "$1/cgroup.procs" || ' +
    '{ echo "orrery: cannot join the cgroup $1" >&2; exit 125; }; shift; done; shift; exec "$@"';
  return ['/bin/sh', '-c', script, 'orrery-join', ...dirs, '--', ...argv];
}

export interface Init {
  pid: number;
  startTime: string;
}

/**
 * `argv` run after the filter's folder is bound read-only at `/run/orrery` of the root mounted
 * at /mnt, as the host's root in the private mount namespace: made before the sandbox's user
 * namespace, the mount is locked inside it. No sandbox process runs while this runs, and a
 * symlink on the way is refused, so the sandbox's files cannot steer the mount elsewhere.
 */
function bindConfinementArgv(confinementDir: string, argv: string[]): string[] {
  const target = `${stagingMountPoint}${sandboxConfinementDir}`;
  const script =
    'for p in "$2" "$3"; do if [ -L "$p" ] || { [ -e "$p" ] && [ ! -d "$p" ]; }; then ' +
    'echo "orrery: $p in the sandbox is not a folder; its confinement cannot be mounted" >&2; exit 125; fi; done; ' +
    'mkdir -p "$3" && mount --bind -o ro,nosuid,nodev "$1" "$3" && shift 3 && exec "$@"';
  return ['/bin/sh', '-c', script, 'orrery-confine', confinementDir, dirname(target), target, ...argv];
}

/**
 * Starts the sandbox's init and resolves once it runs (its namespaces and root are in place): in
 * a user namespace of its id range, its files shown in that range through idmapped mounts.
 */
export function startInit(record: SandboxRecord, layout: Layout): Promise<Init> {
  const range = record.idRange;
  return withUserNamespace(sandboxMap(range), (userNamespace) =>
    range.applied
      ? withUserNamespace(idmapMountMap(range.outside), (userns) =>
          launch(record, layout, userNamespace, { helper: range.idmapMount, userns }),
        )
      : launch(record, layout, userNamespace),
  );
}

async function launch(
  record: SandboxRecord,
  layout: Layout,
  userNamespace: string,
  idmap?: Idmap,
): Promise<Init> {
  const filter = record.confinement;
  const init = [
    ...[hostProgram('nsenter'), `--user=${userNamespace}`, '--setuid', '0', '--setgid', '0', '--'],
    ...[
      hostProgram('bwrap'),
      ...bwrapArgs(record.id, filter !== null, record.procViews),
      '--',
      '/usr/bin/perl',
      '-e',
      initScript,
    ],
  ];
  const sandbox = filter === null ? init : bindConfinementArgv(filter, init);
  const argv = joinCgroupsArgv(joinDirs(record.cgroups), mountRootArgv(layout, record, sandbox, idmap));
  const log = openSync(layout.log, 'a');
  const program = filter === null ? undefined : openSync(join(filter, confinementFiles.filter), 'r');
  const child = spawn(argv[0]!, argv.slice(1), {
    detached: true,
    env: hostEnv,
    stdio: ['ignore', log, log, 'pipe', ...(program === undefined ? [] : [program])],
  });
  closeSync(log);
  if (program !== undefined) closeSync(program);
  return startedOrKilled(
    child,
    async () => {
      const pid = await sandboxPid(child, layout);
      await running(pid, layout);
      return pid;
    },
    `the sandbox's init exited at once; read ${layout.log}`,
  );
}

/**
 * A detached host process (an init, a sandbox's network) once it says it is ready: the pid
 * `started` names, with its start time. Where it never does, or is gone by then, its whole group
 * is killed and the error thrown. The pipes it was read through are closed either way.
 */
export async function startedOrKilled(
  child: ChildProcess,
  started: () => Promise<number>,
  exited: string,
): Promise<{ pid: number; startTime: string }> {
  try {
    const pid = await started();
    const startTime = processStartTime(pid);
    if (startTime === undefined) throw new Error(exited);
    return { pid, startTime };
  } catch (error) {
    if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    throw error;
  } finally {
    for (const pipe of child.stdio.slice(1)) (pipe as Readable | null)?.destroy();
    child.unref();
  }
}

/** bwrap writes `{"child-pid": N, …}` on its info fd once the namespaces exist. */
function sandboxPid(child: ChildProcess, layout: Layout): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    const info = child.stdio[3] as Readable;
    const failed = () => reject(new Error(`the sandbox did not start:\n${logTail(layout)}`));
    info.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const pid = /"child-pid":\s*(\d+)/.exec(text)?.[1];
      if (pid !== undefined) resolve(Number(pid));
    });
    info.on('error', failed);
    child.on('exit', failed);
    child.on('error', reject);
  });
}

async function running(pid: number, layout: Layout): Promise<void> {
  const failed = () => new Error(`the sandbox's init did not come up:\n${logTail(layout)}`);
  const up = await poll(
    () => {
      const name = processName(pid);
      if (name === undefined) throw failed(); // it exited
      return name === initName;
    },
    { timeoutMs: 10_000, intervalMs: 5 },
  );
  if (!up) throw failed();
}

export function initAlive(record: SandboxRecord): boolean {
  return record.init !== null && processLives(record.init.pid, record.init.startTime);
}

/** Without cgroups: killing pid 1 makes the kernel kill everything in its pid namespace. */
export function killInit(record: SandboxRecord): void {
  if (record.init !== null && initAlive(record)) process.kill(record.init.pid, 'SIGKILL');
}

export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function logTail(layout: Layout): string {
  return existsSync(layout.log) ? readFileSync(layout.log, 'utf8').split('\n').slice(-15).join('\n') : '';
}
