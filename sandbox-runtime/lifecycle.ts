import type { SandboxSize } from '../domain/sandboxes/events.ts';
import type { NetworkPolicy } from '../domain/sandboxes/network.ts';
import { poll } from '../platform/poll.ts';
import { killCgroup, type LimitReport, removeCgroups, removeChildCgroups } from './cgroups.ts';
import { type DiskIoLimit, limitDiskIo, releaseDiskIo } from './disk-io.ts';
import { isFrozen, setFrozen } from './freeze.ts';
import { sizeLimits } from './limits.ts';
import { type EgressSettings, egressAlive, startEgress, stopEgress } from './network.ts';
import type { ProcViews } from './proc-views.ts';
import { initAlive, killInit, startInit } from './process-tree.ts';
import { type DiskLimit, type FilesystemMode, type Layout, removeFilesystem } from './sandbox-fs.ts';
import { type SandboxRecord, writeRecord } from './state.ts';
import type { IdRange } from './user-namespace.ts';

// The steps of a sandbox's life that touch both its processes and its record, used by the
// runtime's commands (runtime.ts) and by recover(). Each takes the record as read from disk and
// writes back what changed, so a crash between two steps leaves a record recover() can finish.

export type SandboxState = 'running' | 'stopped' | 'exited';

export interface SandboxStatus {
  id: string;
  /** `exited`: the processes are gone (host restart, or pid 1 killed); the next use restarts them. */
  state: SandboxState;
  size: SandboxSize;
  forkedFrom: string | null;
  initPid: number | null;
  filesystem: FilesystemMode;
  freezer: SandboxRecord['freezer'];
  /** Per cgroup controller, and for the disk: where the limit was applied, or why it was not. */
  limits: LimitReport & { disk: DiskLimit; diskIo: DiskIoLimit };
  /** Whether its /proc shows those limits (lxcfs, proc-views.ts), or why it shows the host's. */
  procViews: ProcViews;
  /** Its own range of host ids (user-namespace.ts), or why it shares the one range. */
  idRange: IdRange;
  network: NetworkPolicy;
}

export type RecoveryOutcome = 'kept' | 'restarted' | 'destroyed';

export type Log = (line: string) => void;

/**
 * What the steps take from the runtime beyond a sandbox's record: its log, how sandboxes reach
 * out, and the /proc views a new init binds (proc-views.ts).
 */
export interface Steps {
  log: Log;
  egress: EgressSettings;
  procViews: () => Promise<ProcViews>;
}

export function statusOf(record: SandboxRecord): SandboxStatus {
  const alive = initAlive(record);
  return {
    id: record.id,
    state: alive ? record.desired : 'exited',
    size: record.size,
    forkedFrom: record.forkedFrom,
    initPid: alive ? (record.init?.pid ?? null) : null,
    filesystem: record.filesystem,
    freezer: record.freezer,
    limits: { ...record.limits, disk: record.disk, diskIo: record.diskIo },
    procViews: record.procViews,
    idRange: record.idRange,
    network: record.network,
  };
}

export function saved(layout: Layout, record: SandboxRecord): SandboxRecord {
  writeRecord(layout, record);
  return record;
}

/** Starts a new sandbox's processes; if that fails, nothing of it is left behind. */
export async function boot(record: SandboxRecord, layout: Layout, steps: Steps): Promise<SandboxRecord> {
  saved(layout, record);
  try {
    return await startProcesses(record, layout, steps);
  } catch (error) {
    await destroySandbox(record, layout, steps).catch(() => removeFilesystem(layout));
    throw error;
  }
}

/**
 * A fresh init over the kept files, like a machine after a reboot; frozen at once if stopped.
 * After a crash the old init is gone; for `restart` it still runs: either way every process of
 * the old tree ends first (endProcesses), from the host, so no fork inside the sandbox is needed
 * and a sandbox held at its process limit restarts too.
 */
export async function startProcesses(
  record: SandboxRecord,
  layout: Layout,
  steps: Steps,
): Promise<SandboxRecord> {
  // Leftovers of the old tree (an exec's background process) go, and the exec cgroups they kept;
  // a frozen cgroup is thawed, or the new init would freeze as it joins.
  await endProcesses(record);
  if (record.cgroups.unified !== undefined) removeChildCgroups(record.cgroups.unified);
  if (record.freezer === 'cgroup') await setFrozen(record, false);
  const viewed = { ...record, procViews: await steps.procViews() };
  const init = saved(layout, { ...viewed, init: await startInit(viewed, layout), egress: null });
  // Its way out before it may freeze: slirp joins the sandbox's cgroups as it starts.
  const started = saved(layout, {
    ...init,
    diskIo: await limitDiskIo(layout, init.disk.applied, sizeLimits[init.size].diskMBps),
    egress: await startEgress(init, init.network, steps.egress),
  });
  if (started.desired === 'stopped') await setFrozen(started, true);
  steps.log(`sandbox ${record.id}: init is pid ${started.init?.pid}`);
  return started;
}

export async function ensureProcesses(
  record: SandboxRecord,
  layout: Layout,
  steps: Steps,
): Promise<SandboxRecord> {
  return initAlive(record) ? record : startProcesses(record, layout, steps);
}

/** Runs `task` (a copy of the files) with the sandbox frozen, if it is running. */
export async function whilePaused<T>(record: SandboxRecord, task: () => Promise<T>): Promise<T> {
  const pause = record.desired === 'running' && initAlive(record);
  if (pause) await setFrozen(record, true);
  try {
    return await task();
  } finally {
    if (pause) await setFrozen(record, false);
  }
}

/**
 * Ends every process of the sandbox: its whole cgroup tree at once (cgroup v2's `cgroup.kill`,
 * which also kills what forks meanwhile), or, without it, its pid 1, whose death makes the kernel
 * kill the rest of its pid namespace.
 */
async function endProcesses(record: SandboxRecord): Promise<void> {
  stopEgress(record.egress); // in the sandbox's cgroups too, but a v1-only host has no cgroup.kill
  releaseDiskIo(record.diskIo);
  const killed = record.cgroups.unified !== undefined && (await killCgroup(record.cgroups.unified));
  if (killed) return;
  killInit(record);
  await poll(() => !initAlive(record), { timeoutMs: 5000, intervalMs: 20 });
}

/** Kills every process, then removes the cgroups and the files. */
export async function destroySandbox(record: SandboxRecord, layout: Layout, steps: Steps): Promise<void> {
  saved(layout, { ...record, destroying: true });
  await endProcesses(record);
  await removeCgroups(record.cgroups);
  removeFilesystem(layout);
  steps.log(`sandbox ${record.id}: destroyed`);
}

/**
 * After a restart of the API process: a sandbox whose processes still run is kept as it is
 * (frozen or not, as last asked). One whose processes died (the host rebooted, or its pid 1 was
 * killed) gets a fresh init over its kept files, like a machine that rebooted, and is frozen
 * again if it was stopped. An interrupted destroy is finished.
 */
export async function recoverSandbox(
  record: SandboxRecord,
  layout: Layout,
  steps: Steps,
): Promise<RecoveryOutcome> {
  if (record.destroying) {
    await destroySandbox(record, layout, steps);
    return 'destroyed';
  }
  if (!initAlive(record)) {
    await startProcesses(record, layout, steps);
    return 'restarted';
  }
  const stopped = record.desired === 'stopped';
  if (isFrozen(record) !== stopped) await setFrozen(record, stopped);
  if (!stopped) await ensureEgress(record, layout, steps);
  return 'kept';
}

/**
 * A running sandbox whose egress is open gets slirp back if it is gone (killed, or the host
 * rebooted while the sandbox was stopped and its slirp frozen with it). Not for a frozen sandbox:
 * slirp would freeze as it joins, before it is ready.
 */
export async function ensureEgress(
  record: SandboxRecord,
  layout: Layout,
  steps: Steps,
): Promise<SandboxRecord> {
  if (record.network.egress !== 'open' || egressAlive(record.egress) || !initAlive(record)) return record;
  return saved(layout, { ...record, egress: await startEgress(record, record.network, steps.egress) });
}
