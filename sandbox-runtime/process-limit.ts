import { join } from 'node:path';
import { processLimitReached, type SandboxError } from '../domain/sandboxes/errors.ts';
import { readLines } from './cgroups.ts';
import type { SandboxRecord } from './state.ts';

// A sandbox at its task limit (cgroup `pids.max`, limits.ts) cannot start anything: entering it
// takes a fork (nsenter's, into its pid namespace), and the kernel refuses that fork. A fork
// bomb left in the background keeps a sandbox there (issue 48). exec and files then answer
// `process_limit` (domain/sandboxes/errors.ts), which names the limit and the way out, rather
// than nsenter's "fork failed": a restart ends every process from the host (runtime.ts), with no
// fork inside.

/** Tasks one entry adds: the process that joins the sandbox (nsenter) and the child it forks. */
const tasksToEnter = 2;

export interface TaskCount {
  current: number;
  max: number;
  /** Forks the limit refused so far (`pids.events`, `max`): it grows while the sandbox is at it. */
  refused: number;
}

/** The sandbox's tasks, their limit and the forks refused, where its pids limit was written. */
export function taskCount(record: SandboxRecord): TaskCount | undefined {
  const pids = record.limits.pids;
  if (!pids?.applied) return undefined;
  const read = (file: string) => readLines(join(pids.dir, file));
  const current = Number(read('pids.current')[0]);
  const max = Number(read('pids.max')[0]); // `max` (no limit) is NaN
  const refused = Number(
    read('pids.events')
      .find((line) => line.startsWith('max '))
      ?.slice(4) ?? 0,
  );
  if (!Number.isInteger(current) || !Number.isInteger(max)) return undefined;
  return { current, max, refused: Number.isInteger(refused) ? refused : 0 };
}

/**
 * Before an entry: refuses when the sandbox has no room for it. Answers the count, for
 * `refusedByLimit` to tell afterwards whether the limit refused a fork meanwhile.
 */
export function refuseAtProcessLimit(record: SandboxRecord): TaskCount | undefined {
  const count = taskCount(record);
  if (count && count.current + tasksToEnter > count.max) throw processLimitReached(count.max);
  return count;
}

/** nsenter's words when it could not fork into the sandbox's pid namespace. */
const entryForkFailed = /^nsenter: fork failed: /;

/** The words of a failed fork: nsenter's, or the sandbox's own shell's (dash: "Cannot fork"). */
const anyForkFailed = /^nsenter: fork failed: |Cannot fork/m;

/**
 * After an entry that failed: `process_limit` when it failed on a fork the limit refused (the
 * words say a fork failed, and the cgroup counted a refusal since `before`), else undefined.
 * `ours`: the program was the runtime's own (the files' scripts), so any of its forks counts; a
 * caller's command counts only when it never started (nsenter's fork), since a command that ran
 * answers its own output.
 */
export function refusedByLimit(
  record: SandboxRecord,
  before: TaskCount | undefined,
  stderr: Buffer,
  ours: boolean,
): SandboxError | undefined {
  if (!(ours ? anyForkFailed : entryForkFailed).test(stderr.toString())) return undefined;
  const after = taskCount(record);
  if (before === undefined || after === undefined || after.refused <= before.refused) return undefined;
  return processLimitReached(after.max);
}
