import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { SandboxRuntime } from '../../../sandbox-runtime/runtime.ts';
import { upperFile } from './given.ts';

// A process whose only state is in its memory: a shell loop counting, writing each value to a
// file every 200 ms. Frozen, the file stops changing; thawed, the next value is the last plus
// one (a restarted process would begin again at 1).

export async function startCounter(runtime: SandboxRuntime, id: string): Promise<void> {
  // Renamed into place, so a freeze between two steps never leaves the file empty.
  const loop =
    'i=0; while :; do i=$((i+1)); echo $i > /root/counter.new; mv /root/counter.new /root/counter; sleep 0.2; done';
  await runtime.exec(id, `nohup sh -c '${loop}' > /dev/null 2>&1 &`);
  await expect.poll(() => counterValue(runtime, id), { timeout: 5000 }).toBeGreaterThanOrEqual(2);
}

/**
 * Counts the counter's loop shells in a sandbox (`|| true`: pgrep exits 1 on none). The pattern
 * is the loop's own text: its `mv /root/counter.new …` also names the file, for an instant every
 * 200 ms, and must not be counted; the brackets keep pgrep's own command line out.
 */
export const countCounterLoops = 'pgrep -fc "counte[r].new; mv" || true';

export function counterValue(runtime: SandboxRuntime, id: string): number {
  return Number(upperFile(runtime.dir, id, 'root/counter') ?? 0);
}

/** Stops the sandbox, checks the counter stands still, resumes it, checks it goes on. */
export async function expectFrozenAndThawed(runtime: SandboxRuntime, id: string): Promise<void> {
  expect((await runtime.stop(id)).state).toBe('stopped');
  const frozenAt = counterValue(runtime, id);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(counterValue(runtime, id)).toBe(frozenAt);

  expect((await runtime.resume(id)).state).toBe('running');
  await expect.poll(() => counterValue(runtime, id), { interval: 10, timeout: 3000 }).not.toBe(frozenAt);
  expect(counterValue(runtime, id)).toBe(frozenAt + 1);
}

/** Whether a host process is gone (a zombie awaiting its reaper counts as gone). */
export function processGone(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return true;
  try {
    const text = readFileSync(stat, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}
