import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { SandboxRuntime } from '../../../sandbox-runtime/runtime.ts';
import { eventually } from '../../harness/platform.ts';
import { upperFile } from './given.ts';

// A process whose only state is in its memory: a shell loop counting, writing each value to a
// file every 200 ms. Frozen, the file stops changing; thawed, the next value is the last plus
// one (a restarted process would begin again at 1).

/** Renamed into place, so a freeze between two steps never leaves the file empty. */
const countingLoop = (file: string) =>
  `i=0; while :; do i=$((i+1)); echo $i > ${file}.new; mv ${file}.new ${file}; sleep 0.2; done`;

/** Starts the counter in a sandbox, in the background, as an exec command. */
export const startCounterCommand = `nohup sh -c '${countingLoop('/root/counter')}' > /dev/null 2>&1 &`;

export async function startCounter(runtime: SandboxRuntime, id: string): Promise<void> {
  await runtime.exec(id, startCounterCommand);
  await expect.poll(() => counterValue(runtime, id), { timeout: 5000 }).toBeGreaterThanOrEqual(2);
}

/**
 * The same loop on the host, beside the sandbox: resolves once it has counted three, two of its
 * sleeps after this call. A sandbox's counter that is not frozen counts on in that time, so a
 * file that stayed the same meanwhile shows a frozen or gone process, on a slow machine too.
 */
export async function whileHostCounterCountsTwice(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-host-counter-'));
  const file = join(dir, 'counter');
  const loop = spawn('sh', ['-c', countingLoop(file)], { stdio: 'ignore' });
  try {
    const value = () => (existsSync(file) ? Number(readFileSync(file, 'utf8')) : 0);
    await eventually(async () => (value() >= 3 ? true : undefined), 10_000, 'the host counter');
  } finally {
    loop.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
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
  await whileHostCounterCountsTwice();
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
