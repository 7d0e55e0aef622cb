import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { RunFailed } from '../platform/run-to-end.ts';
import { hostProgram, runHost } from './host.ts';

// A sandbox sees itself in /proc, not the host: its memory, cpus, load, uptime and cpu times are
// served by LXCFS (Debian's lxcfs), a FUSE filesystem that answers each read for the cgroups of
// the process reading (memory.limit_in_bytes, the CFS quota as cpus, the load and times of the
// processes in its cgroup, its pid 1's start as boot). The sandbox's init binds those files over
// its own fresh /proc (process-tree.ts), as LXC does, and an empty kernel command line too.
//
// One lxcfs per host, on a folder the runtime owns; every runtime on the host uses it. It runs
// detached, so sandboxes (which outlive the sandbox host's process) keep their views; each start
// of an init finds it answering, or starts it (a dead one leaves a mount that answers ENOTCONN:
// unmounted first), under a lock so two runtimes never start two. Where it cannot run (no
// /dev/fuse, no lxcfs) sandboxes start without the views, and their status says why.

/** The files of a sandbox's /proc that lxcfs serves (LXC binds the same ones). */
export const procViewFiles = [
  'cpuinfo',
  'diskstats',
  'loadavg',
  'meminfo',
  'stat',
  'swaps',
  'uptime',
] as const;

/** Where the views were served from, or why this sandbox's /proc is the kernel's own. */
export const procViews = z.union([
  z.object({ applied: z.literal(true), dir: z.string() }),
  z.object({ applied: z.literal(false), reason: z.string() }),
]);
export type ProcViews = z.infer<typeof procViews>;

/** Traversable by every uid: bwrap binds from it as root inside a sandbox (its range's first uid outside). */
export const defaultProcViewsDir = '/var/lib/orrery-proc-views';

export function procViewsLayout(dir: string) {
  return {
    /** lxcfs's mount point; its `proc/` holds the files. */
    mount: join(dir, 'lxcfs'),
    pidFile: join(dir, 'lxcfs.pid'),
    lock: join(dir, 'lxcfs.lock'),
    log: join(dir, 'lxcfs.log'),
    /** What a sandbox reads as /proc/cmdline instead of the host's boot options. */
    cmdline: join(dir, 'cmdline'),
  };
}

/** CPUs from the CFS quota, loads per cgroup, processes tracked by pidfd (no pid reuse). */
const lxcfsOptions = ['--enable-cfs', '--enable-loadavg', '--enable-pidfd'];

/**
 * Under the lock, again: lxcfs answers (another runtime started it meanwhile), or its stale mount
 * goes and a new lxcfs starts, in its own session and spared by the OOM killer where we may (as
 * Debian's unit has it), until its mount answers or it exits.
 */
const startScript =
  'm=$1 pidfile=$2 log=$3; shift 3; answers() { head -c 1 "$m/proc/uptime" > /dev/null 2>&1; }; ' +
  'lives() { s=$(cut -d " " -f 3 /proc/$1/stat 2> /dev/null) && [ "$s" != Z ]; }; ' +
  'answers && exit 0; umount -l "$m" 2> /dev/null; mkdir -p "$m" || exit 1; ' +
  'setsid "$@" -p "$pidfile" "$m" < /dev/null >> "$log" 2>&1 & { echo -1000 > /proc/$!/oom_score_adj; } 2> /dev/null; ' +
  'i=0; while [ $i -lt 200 ]; do answers && exit 0; lives $! || break; sleep 0.025; i=$((i+1)); done; ' +
  'grep -v "^Running destructor" "$log" | tail -n 1 >&2; exit 1';

/**
 * The views a new init binds: lxcfs found answering at `dir`, or started there; or the reason
 * there are none. Quick when it answers (one read of its uptime file).
 */
export async function ensureProcViews(dir: string): Promise<ProcViews> {
  const layout = procViewsLayout(dir);
  if (await answers(layout.mount)) return { applied: true, dir };
  let lxcfs: string;
  try {
    lxcfs = hostProgram('lxcfs');
  } catch {
    return { applied: false, reason: "lxcfs is not installed (Debian's lxcfs)" };
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
    writeFileSync(layout.cmdline, '\n', { mode: 0o644 });
    await runHost(hostProgram('flock'), [
      ...['-o', layout.lock, '/bin/sh', '-c', startScript, 'orrery-lxcfs'],
      ...[layout.mount, layout.pidFile, layout.log, lxcfs, ...lxcfsOptions],
    ]);
  } catch (error) {
    const said = error instanceof RunFailed ? error.tail : String(error);
    return { applied: false, reason: `lxcfs could not start: ${said.trim().split('\n').at(-1)}` };
  }
  return (await answers(layout.mount))
    ? { applied: true, dir }
    : { applied: false, reason: `lxcfs started but its files at ${layout.mount} do not answer` };
}

/**
 * `ensureProcViews` for every init a runtime starts, except that a refusal stands for a minute:
 * where lxcfs cannot run, a create does not wait for it to fail each time.
 */
export function procViewsOf(dir: string, now = () => Date.now()): () => Promise<ProcViews> {
  let refused: { views: ProcViews; at: number } | undefined;
  return async () => {
    if (refused !== undefined && now() - refused.at < 60_000) return refused.views;
    const views = await ensureProcViews(dir);
    refused = views.applied ? undefined : { views, at: now() };
    return views;
  };
}

/** Whether lxcfs serves its files at `mount` (a read within a second; ENOTCONN when it died). */
async function answers(mount: string): Promise<boolean> {
  const read = readFile(join(mount, 'proc', 'uptime')).then(
    () => true,
    () => false,
  );
  const late = new Promise<boolean>((resolve) => setTimeout(resolve, 1000, false).unref());
  return Promise.race([read, late]);
}

/** bwrap's arguments that place the views over the sandbox's fresh /proc (after `--proc /proc`). */
export function procViewsBwrapArgs(views: ProcViews): string[] {
  if (!views.applied) return [];
  const { mount, cmdline } = procViewsLayout(views.dir);
  return [
    ...procViewFiles.flatMap((file) => ['--ro-bind', join(mount, 'proc', file), `/proc/${file}`]),
    ...['--ro-bind', cmdline, '/proc/cmdline'],
  ];
}
