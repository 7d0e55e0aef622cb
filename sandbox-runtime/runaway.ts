import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { limitSettings, sizeLimits } from './limits.ts';
import { type TaskCount, taskCount } from './process-limit.ts';
import type { SandboxRecord } from './state.ts';

// A fork bomb held at its task limit forks and exits without end. Its CPU quota bounds how much
// it runs, but not when: each time the kernel throttles and releases a group that churns tasks
// like this, the other tasks on that core (the platform's, another sandbox's exec) wait tens of
// milliseconds for it, where spinning loops under the same quota cost them a few (issue 48,
// bench/sandbox-abuse.ts). So a sandbox whose limit is refusing forks runs at idle CPU priority
// (the kernel's `cpu.idle`, cgroup v1 and v2): every other task preempts it at once, except in
// the midst of a fork in the kernel, which this kernel does not preempt; so its quota also drops
// to a quarter of its size's, which makes those moments four times rarer. Once no fork has been
// refused for `calmMs` it runs as before. Nothing is killed and nothing it holds changes; the
// runtime's log says when it turns. A sandbox whose forks fail is broken already: a build at its
// task limit loses nothing it had.

/** The share of its size's cores a sandbox keeps while its task limit refuses forks. */
export const runawayCpuShare = 0.25;

/** What the watch remembers of one sandbox between looks. */
export interface RunawayState {
  /** Forks its limit refused, as last read (`pids.events`). */
  refused: number;
  /** When a refusal was last seen, in ms. */
  lastRefusalAt?: number;
}

/** The next state, and whether the sandbox is to run at idle priority now. */
export function nextRunawayState(
  previous: RunawayState | undefined,
  count: TaskCount,
  nowMs: number,
  calmMs: number,
): { state: RunawayState; idle: boolean } {
  // First look, or the counter started over (a restart makes new cgroups): nothing new refused.
  const refusedSince = previous !== undefined && count.refused > previous.refused;
  const fresh = previous === undefined || count.refused < previous.refused;
  const lastRefusalAt = refusedSince ? nowMs : fresh ? undefined : previous.lastRefusalAt;
  const state = { refused: count.refused, ...(lastRefusalAt === undefined ? {} : { lastRefusalAt }) };
  return { state, idle: lastRefusalAt !== undefined && nowMs - lastRefusalAt < calmMs };
}

/** The `cpu.idle` file of a sandbox, where its cpu limit was written and the kernel has one. */
function cpuIdleFile(record: SandboxRecord): string | undefined {
  const cpu = record.limits.cpu;
  if (!cpu?.applied) return undefined;
  const file = join(cpu.dir, 'cpu.idle');
  return existsSync(file) ? file : undefined;
}

export interface RunawayWatchOptions {
  /** How long without a refused fork before a sandbox runs at its normal priority again. */
  calmMs?: number;
  log?: (line: string) => void;
}

/** Keeps, per sandbox, what the last look saw; `look` is one pass over the running sandboxes. */
export class RunawayWatch {
  private readonly states = new Map<string, RunawayState>();
  private readonly idle = new Set<string>();
  private readonly calmMs: number;
  private readonly log: (line: string) => void;

  constructor(options: RunawayWatchOptions = {}) {
    this.calmMs = options.calmMs ?? 5000;
    this.log = options.log ?? (() => {});
  }

  /** Whether the sandbox runs at idle priority now. */
  isIdle(id: string): boolean {
    return this.idle.has(id);
  }

  look(records: readonly SandboxRecord[], nowMs = Date.now()): void {
    const seen = new Set<string>();
    for (const record of records) {
      try {
        if (this.lookAt(record, nowMs)) seen.add(record.id);
      } catch {
        // its cgroups went while we looked (destroyed, restarted): the next look sees it anew
      }
    }
    for (const id of this.states.keys()) {
      if (seen.has(id)) continue;
      this.states.delete(id);
      this.idle.delete(id);
    }
  }

  /** One sandbox; false where it has no task limit or no `cpu.idle` to watch. */
  private lookAt(record: SandboxRecord, nowMs: number): boolean {
    const count = taskCount(record);
    const file = cpuIdleFile(record);
    if (count === undefined || file === undefined) return false;
    const previous = this.states.get(record.id);
    const next = nextRunawayState(previous, count, nowMs, this.calmMs);
    // A host process that ended while a sandbox was idle left the kernel's flag set: the first
    // look takes it from the file.
    const idleNow =
      previous === undefined ? readFileSync(file, 'utf8').trim() === '1' : this.idle.has(record.id);
    if (next.idle !== idleNow) this.setIdle(record, file, next.idle, count);
    this.states.set(record.id, next.state);
    return true;
  }

  private setIdle(record: SandboxRecord, file: string, idle: boolean, count: TaskCount): void {
    const { id } = record;
    const size = sizeLimits[record.size];
    const cpus = idle ? size.cpus * runawayCpuShare : size.cpus;
    writeFileSync(file, idle ? '1' : '0');
    const cpu = record.limits.cpu;
    if (cpu?.applied)
      for (const { file: name, value } of limitSettings({ ...size, cpus }, 'cpu', cpu.version))
        writeFileSync(join(cpu.dir, name), value);
    if (idle) this.idle.add(id);
    else this.idle.delete(id);
    this.log(
      idle
        ? `sandbox ${id} is at its task limit (${count.max}, ${count.refused} forks refused): it runs at idle CPU priority on ${cpus} of its ${size.cpus} cores until it calms down`
        : `sandbox ${id} refuses no forks: it runs at its normal CPU priority on its ${size.cpus} cores again`,
    );
  }
}
