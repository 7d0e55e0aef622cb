import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { poll } from '../platform/poll.ts';
import { mountTable } from './host.ts';
import { type LimitController, type Limits, limitControllers, limitSettings } from './limits.ts';

// Where a sandbox's processes are counted, limited, frozen and killed. Hosts differ:
// - pure cgroup v2 (one `cgroup2` mount): freeze, kill and limits all in the unified hierarchy;
// - hybrid (this VM): the unified hierarchy has `cgroup.freeze` and `cgroup.kill` but no
//   controllers, which sit in v1 hierarchies (`memory`, `cpu`, `pids`), so limits go there.
// Each sandbox gets `<group>/<id>` under the runtime's own cgroup in every hierarchy (so the
// sandboxes stay inside whatever limits the runtime itself runs under), and each exec a child
// `<id>/exec-<n>` in the unified hierarchy, so a timeout kills exactly that command's tree.
// On hybrid hosts it also joins the `cpuacct` and `cpuset` hierarchies, without limits: lxcfs
// (proc-views.ts) reads its cpu times there, and looks its CPU quota up at its cpuset's path.

/** v1 hierarchies joined for lxcfs's views only, where the host mounts them apart from `cpu`. */
export const viewControllers = ['cpuacct', 'cpuset'] as const;
const v1Controllers = [...limitControllers, ...viewControllers] as const;
type V1Controller = (typeof v1Controllers)[number];

export const cgroupSet = z.object({
  unified: z.string().optional(),
  v1: z.partialRecord(z.enum(v1Controllers), z.string()),
  /** Controllers to be limited through the unified hierarchy (pure v2 hosts). */
  v2Controllers: z.array(z.enum(limitControllers)),
});
export type CgroupSet = z.infer<typeof cgroupSet>;

const limitOutcome = z.union([
  z.object({ applied: z.literal(true), version: z.union([z.literal(1), z.literal(2)]), dir: z.string() }),
  z.object({ applied: z.literal(false), reason: z.string() }),
]);
/** Per controller: where the limit was written, or why the host did not allow it. */
export const limitReport = z.record(z.enum(limitControllers), limitOutcome);
export type LimitReport = z.infer<typeof limitReport>;

interface HostCgroups {
  unified?: string;
  v1: Partial<Record<V1Controller, string>>;
  v2Controllers: LimitController[];
}

/** The runtime's own cgroup in each hierarchy, from the mount table and /proc/self/cgroup. */
export function discoverCgroups(): HostCgroups {
  const own = readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n');
  const ownPath = (match: (controllers: string[]) => boolean) => {
    const line = own.map((entry) => entry.split(':')).find(([, names]) => match((names ?? '').split(',')));
    return line?.slice(2).join(':');
  };
  const host: HostCgroups = { v1: {}, v2Controllers: [] };
  for (const { mountPoint, fsType, superOptions } of mountTable()) {
    if (fsType === 'cgroup2' && host.unified === undefined) {
      const path = ownPath((names) => names.length === 1 && names[0] === '');
      if (path !== undefined) host.unified = join(mountPoint, path);
    }
    if (fsType === 'cgroup') {
      for (const controller of v1Controllers.filter((name) => superOptions.includes(name))) {
        const path = ownPath((names) => names.includes(controller));
        const joined = Object.values(host.v1).includes(join(mountPoint, path ?? ''));
        if (path !== undefined && !joined) host.v1[controller] ??= join(mountPoint, path);
      }
    }
  }
  if (host.unified !== undefined) {
    const available = readLines(join(host.unified, 'cgroup.controllers')).join(' ').split(' ');
    host.v2Controllers = limitControllers.filter(
      (name) => host.v1[name] === undefined && available.includes(name),
    );
  }
  return host;
}

/** The directories of one sandbox; `group` keeps runtimes with different state folders apart. */
export function planCgroups(host: HostCgroups, group: string, id: string): CgroupSet {
  const v1: Partial<Record<V1Controller, string>> = {};
  for (const [controller, root] of Object.entries(host.v1))
    v1[controller as V1Controller] = join(root, group, id);
  return {
    ...(host.unified === undefined ? {} : { unified: join(host.unified, group, id) }),
    v1,
    v2Controllers: host.v2Controllers,
  };
}

/** Creates the sandbox's cgroups and writes its limits; what the host does not allow is reported. */
export function createCgroups(set: CgroupSet, limits: Limits): LimitReport {
  if (set.unified !== undefined) {
    if (set.v2Controllers.length > 0) enableV2Controllers(set.unified, set.v2Controllers);
    mkdirSync(set.unified, { recursive: true });
  }
  for (const dir of Object.values(set.v1)) mkdirSync(dir, { recursive: true });
  if (set.v1.cpuset !== undefined) inheritCpuset(set.v1.cpuset);
  const report = {} as LimitReport;
  for (const controller of limitControllers) report[controller] = applyLimit(set, limits, controller);
  return report;
}

function applyLimit(
  set: CgroupSet,
  limits: Limits,
  controller: LimitController,
): LimitReport[LimitController] {
  const v1 = set.v1[controller];
  const [dir, version] =
    v1 !== undefined
      ? [v1, 1 as const]
      : set.unified !== undefined && set.v2Controllers.includes(controller)
        ? [set.unified, 2 as const]
        : [undefined, 2 as const];
  if (dir === undefined)
    return { applied: false, reason: `the host offers no ${controller} controller to us` };
  try {
    for (const { file, value } of limitSettings(limits, controller, version))
      writeFileSync(join(dir, file), value);
    return { applied: true, version, dir };
  } catch (error) {
    return { applied: false, reason: `writing the ${controller} limit failed: ${(error as Error).message}` };
  }
}

/** A new v1 cpuset has no cpus and no memory nodes, so nothing could join it: its parent's. */
function inheritCpuset(dir: string): void {
  for (const level of [join(dir, '..'), dir]) {
    for (const file of ['cpuset.cpus', 'cpuset.mems']) {
      if (readLines(join(level, file))[0] === '')
        writeFileSync(join(level, file), readLines(join(level, '..', file))[0] ?? '');
    }
  }
}

/** On pure v2 hosts a controller must be enabled in each parent's subtree_control first. */
function enableV2Controllers(dir: string, controllers: LimitController[]): void {
  const parents = [join(dir, '..', '..'), join(dir, '..')];
  mkdirSync(join(dir, '..'), { recursive: true });
  for (const parent of parents) {
    try {
      writeFileSync(join(parent, 'cgroup.subtree_control'), controllers.map((name) => `+${name}`).join(' '));
    } catch {
      // Refused when the parent holds processes itself; applyLimit then reports the limit missing.
    }
  }
}

/** Whether this sandbox can be frozen by cgroup v2 (the file exists only outside the root). */
export function canFreeze(set: CgroupSet): boolean {
  return set.unified !== undefined && existsSync(join(set.unified, 'cgroup.freeze'));
}

/** Directories a new process joins: the sandbox's (or an exec's child of it) in every hierarchy. */
export function joinDirs(set: CgroupSet, unifiedChild?: string): string[] {
  const unified = set.unified === undefined ? [] : [unifiedChild ?? set.unified];
  return [...unified, ...Object.values(set.v1)];
}

let execCounter = 0;

/** A fresh child of the sandbox's unified cgroup for one exec, or undefined without v2. */
export function createExecCgroup(set: CgroupSet): string | undefined {
  if (set.unified === undefined || !existsSync(join(set.unified, 'cgroup.kill'))) return undefined;
  const dir = join(set.unified, `exec-${process.pid}-${++execCounter}`);
  mkdirSync(dir);
  return dir;
}

/** Kills every process in a unified cgroup (and its children) and waits until it is empty. */
export async function killCgroup(dir: string, timeoutMs = 5000): Promise<boolean> {
  if (!existsSync(join(dir, 'cgroup.kill'))) return false;
  writeFileSync(join(dir, 'cgroup.kill'), '1');
  const emptied = await poll(() => readLines(join(dir, 'cgroup.events')).includes('populated 0'), {
    timeoutMs,
    intervalMs: 20,
  });
  return emptied === true;
}

/** Removes a cgroup directory once empty; an exec's leftover background processes keep theirs. */
export function removeCgroup(dir: string): boolean {
  if (!existsSync(dir)) return true;
  removeChildCgroups(dir);
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

/** Removes the child cgroups of `dir` that are empty (the execs' whose processes all ended). */
export function removeChildCgroups(dir: string): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) removeCgroup(join(dir, entry.name));
  }
}

/** Removes all of a sandbox's cgroups, retrying while the kernel finishes reaping. */
export async function removeCgroups(set: CgroupSet): Promise<void> {
  const dirs = joinDirs(set);
  const removed = await poll(() => dirs.map(removeCgroup).every(Boolean), {
    timeoutMs: 1000,
    intervalMs: 20,
  });
  if (!removed) throw new Error(`could not remove the cgroups ${dirs.join(', ')}: processes remain`);
  // The runtime's group folder goes with its last sandbox (refused while others remain).
  for (const dir of dirs) rmdirQuietly(join(dir, '..'));
}

function rmdirQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty: other sandboxes of this runtime still run
  }
}

export function readLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').trim().split('\n');
  } catch {
    return [];
  }
}
