import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxError } from '../../../domain/sandboxes/errors.ts';
import {
  countCounterLoops,
  counterValue,
  expectFrozenAndThawed,
  processGone,
  startCounter,
} from './counter.ts';
import { firstRefusal, forkBombCommand, tasksOf, untilAtLimit } from './fork-bomb.ts';
import { givenRuntime, prepareTimeoutMs, refusal, sandboxId, text } from './given.ts';

// stop keeps files and processes (frozen), resume thaws them, fork makes a running copy with
// the same files, destroy removes processes and files (spec, "States and transitions"); restart
// ends every process, a fork bomb's at the process limit too, and keeps the files (issue 48).

const { runtime, dir, cleanup } = givenRuntime();
const source = sandboxId('life');
const copy = sandboxId('life-copy');

beforeAll(async () => {
  await runtime.prepare();
  await runtime.create(source);
}, prepareTimeoutMs);
afterAll(cleanup);

describe('stop and resume', () => {
  it('freezes the processes and thaws them with their memory', async () => {
    await startCounter(runtime, source);
    await expectFrozenAndThawed(runtime, source);
  });

  it('refuses exec and files while stopped with not_running, and allows them again after resume', async () => {
    await runtime.stop(source);
    expect((await runtime.stop(source)).state).toBe('stopped');
    expect((await refusal(runtime.exec(source, 'true'))).code).toBe('not_running');
    expect((await refusal(runtime.readFile(source, '/etc/hostname'))).code).toBe('not_running');
    expect((await refusal(runtime.writeFile(source, '/root/x', 'x'))).code).toBe('not_running');
    await runtime.resume(source);
    expect((await runtime.resume(source)).state).toBe('running');
    expect((await runtime.exec(source, 'echo back')).result.stdout).toBe('back\n');
  });
});

describe('fork', () => {
  it('makes a running copy with the same files, apart from then on', async () => {
    await runtime.writeFile(source, '/root/before.txt', 'written before the fork');
    const forked = await runtime.fork(source, copy);
    expect(forked).toMatchObject({ id: copy, state: 'running', forkedFrom: source, size: 'small' });

    expect(text(await runtime.readFile(copy, '/root/before.txt'))).toBe('written before the fork');
    await runtime.writeFile(copy, '/root/after.txt', 'only in the copy');
    await runtime.writeFile(copy, '/root/before.txt', 'changed in the copy');
    expect((await refusal(runtime.readFile(source, '/root/after.txt'))).message).toContain('No file');
    expect(text(await runtime.readFile(source, '/root/before.txt'))).toBe('written before the fork');

    // The copy runs its own processes (a fresh init), the source keeps its own, still counting.
    const counters = `hostname; ${countCounterLoops}`;
    expect((await runtime.exec(copy, counters)).result.stdout).toBe(`${copy}\n0\n`);
    expect((await runtime.exec(source, counters)).result.stdout).toBe(`${source}\n1\n`);
    expect((await runtime.status(source)).state).toBe('running');
    const counted = counterValue(runtime, source);
    await expect.poll(() => counterValue(runtime, source), { timeout: 3000 }).toBeGreaterThan(counted);
  });

  it('copies a stopped source, which stays stopped', async () => {
    await runtime.stop(source);
    const second = sandboxId('life-copy2');
    expect((await runtime.fork(source, second)).state).toBe('running');
    expect((await runtime.status(source)).state).toBe('stopped');
    expect(text(await runtime.readFile(second, '/root/before.txt'))).toBe('written before the fork');
    await runtime.resume(source);
    await runtime.destroy(second);
  });

  it('refuses an unknown source', async () => {
    expect((await refusal(runtime.fork('no-such-sandbox', sandboxId('orphan')))).code).toBe('not_found');
  });
});

describe('destroy', () => {
  it('kills the processes and removes the files and cgroups', async () => {
    await runtime.exec(copy, 'sleep 60 > /dev/null 2>&1 &');
    const status = await runtime.status(copy);
    const initPid = status.initPid;
    if (initPid === null) throw new Error('the copy has no init');

    await runtime.destroy(copy);

    expect(processGone(initPid)).toBe(true);
    expect(existsSync(join(dir, copy))).toBe(false);
    for (const outcome of Object.values(status.limits)) {
      // Each cgroup's folder and the disk's image are gone (a bandwidth bound names a device, not a file).
      if (outcome?.applied && !('device' in outcome))
        expect(existsSync('dir' in outcome ? outcome.dir : outcome.image)).toBe(false);
    }
    expect((await refusal(runtime.status(copy))).code).toBe('not_found');
    expect((await refusal(runtime.exec(copy, 'true'))).code).toBe('not_found');
    await runtime.destroy(copy); // a second destroy finds nothing to do
    expect(text(await runtime.readFile(source, '/root/before.txt'))).toBe('written before the fork');
  });
});

describe('restart (issue 48)', () => {
  const bombed = sandboxId('bombed');
  beforeAll(() => runtime.create(bombed, { size: 'small' }));

  it('ends a backgrounded fork bomb that holds the sandbox at its process limit; the files stay', async () => {
    await runtime.writeFile(bombed, '/root/before.txt', 'written before the bomb');
    const before = await runtime.status(bombed);
    const tasks = tasksOf(before);
    expect(tasks().max).toBe(1024); // `small` (limits.ts)

    expect((await runtime.exec(bombed, forkBombCommand)).result.exit_code).toBe(0);
    await untilAtLimit(tasks);

    // Nothing can start inside: exec and files are refused with the limit and the way out.
    const execRefused = await firstRefusal(() => runtime.exec(bombed, 'echo ok', { timeoutSeconds: 5 }));
    expect(execRefused).toBeInstanceOf(SandboxError);
    expect(execRefused).toMatchObject({
      code: 'process_limit',
      status: 409,
      message: expect.stringMatching(/limit of 1,024 processes: .*POST \/sandboxes\/:id\/restart/),
    });
    expect(await firstRefusal(() => runtime.readFile(bombed, '/root/before.txt'))).toMatchObject({
      code: 'process_limit',
    });
    expect(await firstRefusal(() => runtime.writeFile(bombed, '/root/during.txt', 'x'))).toMatchObject({
      code: 'process_limit',
    });

    const restarted = await runtime.restart(bombed);
    expect(restarted).toMatchObject({ id: bombed, state: 'running', size: 'small' });
    expect(restarted.initPid).not.toBe(before.initPid);
    if (before.initPid !== null) expect(processGone(before.initPid)).toBe(true);
    await expect.poll(() => tasks().current, { interval: 5, timeout: 5000 }).toBeLessThan(10);

    expect((await runtime.exec(bombed, 'echo ok')).result.stdout).toBe('ok\n');
    expect(text(await runtime.readFile(bombed, '/root/before.txt'))).toBe('written before the bomb');
    // Never destroyed: the same sandbox, listed once, its files in place.
    expect((await runtime.list()).filter((status) => status.id === bombed)).toHaveLength(1);
    expect(existsSync(join(dir, bombed))).toBe(true);
  }, 120_000);

  it('refuses a stopped sandbox with not_running, as exec does', async () => {
    await runtime.stop(bombed);
    expect((await refusal(runtime.restart(bombed))).code).toBe('not_running');
    expect((await runtime.status(bombed)).state).toBe('stopped');
    await runtime.resume(bombed);
    expect((await refusal(runtime.restart(sandboxId('missing')))).code).toBe('not_found');
  });
});
