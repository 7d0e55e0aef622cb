import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { SandboxStatus } from '../../../sandbox-runtime/runtime.ts';

// A fork bomb that outlives its exec (issue 48): a shell function that pipes two copies of itself
// into the background, started with nohup and left behind, so the exec answers at once and the
// bomb holds the sandbox at its task limit (cgroup pids.max) until its processes are ended.

export const forkBombCommand = "nohup sh -c 'f(){ f|f& }; f' >/dev/null 2>&1 &";

/** The sandbox's tasks and their limit, read where its pids limit was written (status().limits). */
export function tasksOf(status: SandboxStatus): () => { current: number; max: number } {
  const pids = status.limits.pids;
  if (!pids?.applied || !('dir' in pids))
    throw new Error(`no pids limit on ${status.id}: ${JSON.stringify(pids)}`);
  const read = (file: string) => Number(readFileSync(join(pids.dir, file), 'utf8').trim());
  return () => ({ current: read('pids.current'), max: read('pids.max') });
}

/** Waits until the sandbox's tasks reach their limit, read every few milliseconds. */
export async function untilAtLimit(tasks: () => { current: number; max: number }): Promise<void> {
  const reading = () => {
    const { current, max } = tasks();
    return current >= max ? 'at its limit' : `${current} of ${max}`;
  };
  await expect.poll(reading, { interval: 5, timeout: 15_000 }).toBe('at its limit');
}

/**
 * The first refusal of `attempt`, tried again while it succeeds: at the limit an attempt may find
 * a moment's room, when a bomb's process has exited and no other has forked yet, and then runs.
 */
export async function firstRefusal(attempt: () => Promise<unknown>, timeoutMs = 60_000): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const refused = await attempt().then(
      () => undefined,
      (error: unknown) => error,
    );
    if (refused !== undefined) return refused;
  }
  throw new Error(`no refusal in ${timeoutMs} ms: every attempt ran`);
}
