import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxRuntime } from '../../../sandbox-runtime/runtime.ts';
import { layoutOf } from '../../../sandbox-runtime/sandbox-fs.ts';
import { readRecord, writeRecord } from '../../../sandbox-runtime/state.ts';
import {
  countCounterLoops,
  counterValue,
  processGone,
  startCounter,
  whileHostCounterCountsTwice,
} from './counter.ts';
import { givenRuntime, prepareTimeoutMs, sandboxId, text } from './given.ts';

// recover(): after the API process restarts, a new runtime on the same state folder finds the
// sandboxes whose processes still run and keeps them; those whose processes died get a fresh
// init over their files; an interrupted destroy is finished.

const { runtime: before, dir, cleanup } = givenRuntime();
const running = sandboxId('rec-run');
const stopped = sandboxId('rec-stop');

beforeAll(async () => {
  await before.prepare();
  await before.create(running);
  await before.create(stopped);
}, prepareTimeoutMs);
afterAll(cleanup);

async function killInit(runtime: SandboxRuntime, id: string): Promise<void> {
  const pid = (await runtime.status(id)).initPid;
  if (pid === null) throw new Error(`${id} has no init`);
  process.kill(pid, 'SIGKILL');
  await expect.poll(() => processGone(pid), { timeout: 5000 }).toBe(true);
}

describe('recover', () => {
  it('keeps sandboxes whose processes still run, frozen or not', async () => {
    await before.writeFile(running, '/root/kept.txt', 'kept');
    await startCounter(before, running);
    await before.stop(stopped);
    const pids = [(await before.status(running)).initPid, (await before.status(stopped)).initPid];

    const after = new SandboxRuntime({ dir });
    expect(await after.recover()).toEqual({ [running]: 'kept', [stopped]: 'kept' });
    expect([(await after.status(running)).initPid, (await after.status(stopped)).initPid]).toEqual(pids);
    expect((await after.status(stopped)).state).toBe('stopped');
    expect((await after.exec(running, countCounterLoops)).result.stdout).toBe('1\n');
  });

  it('restarts sandboxes whose processes died, with their files, stopped ones frozen again', async () => {
    const after = new SandboxRuntime({ dir });
    await killInit(after, running);
    await killInit(after, stopped);
    expect((await after.status(running)).state).toBe('exited');

    expect(await after.recover()).toEqual({ [running]: 'restarted', [stopped]: 'restarted' });
    expect((await after.status(running)).state).toBe('running');
    expect(text(await after.readFile(running, '/root/kept.txt'))).toBe('kept');
    // The processes are new: the counter is gone, its last value stays in the file.
    expect((await after.exec(running, countCounterLoops)).result.stdout).toBe('0\n');
    const last = counterValue(after, running);
    await whileHostCounterCountsTwice();
    expect(counterValue(after, running)).toBe(last);

    expect((await after.status(stopped)).state).toBe('stopped');
    expect((await after.resume(stopped)).state).toBe('running');
    expect((await after.exec(stopped, 'echo up')).result.stdout).toBe('up\n');
  });

  it('restarts a sandbox whose init died on its next use', async () => {
    await killInit(before, running);
    expect((await before.exec(running, 'cat /root/kept.txt')).result.stdout).toBe('kept');
    expect((await before.status(running)).state).toBe('running');
  });

  it('finishes an interrupted destroy', async () => {
    const doomed = sandboxId('rec-doomed');
    await before.create(doomed);
    const layout = layoutOf(dir, doomed);
    const record = readRecord(layout);
    if (!record?.init) throw new Error('no record');
    writeRecord(layout, { ...record, destroying: true });

    expect((await new SandboxRuntime({ dir }).recover())[doomed]).toBe('destroyed');
    expect(existsSync(join(dir, doomed))).toBe(false);
    expect(processGone(record.init.pid)).toBe(true);
  });
});
