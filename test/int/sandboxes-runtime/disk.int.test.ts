import { spawnSync } from 'node:child_process';
import { existsSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sizeLimits } from '../../../sandbox-runtime/limits.ts';
import type { SandboxRuntime } from '../../../sandbox-runtime/runtime.ts';
import { processGone } from './counter.ts';
import { givenRuntime, prepareTimeoutMs, refusal, sandboxId, text } from './given.ts';

// A sandbox's writable layer is a filesystem of its disk quota (sandbox-fs.ts): `df /` inside
// shows the size, a write past it fails with ENOSPC, and the host's disk does not notice. The
// sizes' own quotas (8 GiB and up) are checked by `df`; the filling runs in a runtime whose
// sandboxes all get 256 MiB (`diskMiB`), so it takes a second, not minutes.

const MiB = 1024 * 1024;
const quotaMiB = 256;

const sized = givenRuntime();
const small = givenRuntime({ diskMiB: quotaMiB });
const unlimited = givenRuntime({ disk: 'unlimited' });

beforeAll(async () => {
  await Promise.all([sized.runtime.prepare(), small.runtime.prepare(), unlimited.runtime.prepare()]);
}, prepareTimeoutMs);
afterAll(async () => {
  await sized.cleanup();
  await small.cleanup();
  await unlimited.cleanup();
});

async function run(runtime: SandboxRuntime, id: string, command: string) {
  return (await runtime.exec(id, command, { timeoutSeconds: 120 })).result;
}

/** `df -B1 /` inside: the root's size and what is free, in bytes. */
async function rootDf(runtime: SandboxRuntime, id: string): Promise<{ size: number; available: number }> {
  const [size = '', , available = ''] = (
    await run(runtime, id, 'df -B1 --output=size,used,avail / | tail -1')
  ).stdout
    .trim()
    .split(/\s+/);
  return { size: Number(size), available: Number(available) };
}

/** Free bytes of the host's filesystem that holds the state folder. */
function hostFree(dir: string): number {
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}

/** The loop devices backed by a file, removed or not. */
function loopDevicesOf(file: string): string[] {
  const listed = spawnSync('losetup', ['--list', '--noheadings', '--output', 'BACK-FILE'], {
    encoding: 'utf8',
  });
  return listed.stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line === file || line === `${file} (deleted)`);
}

describe("a size's disk quota", () => {
  it.each(['small', 'standard'] as const)('%s: df / inside shows its size', async (size) => {
    const id = sandboxId(`disk-${size}`);
    const status = await sized.runtime.create(id, { size });
    const bytes = sizeLimits[size].diskMiB * MiB;
    expect(status.limits.disk).toEqual({ applied: true, bytes, image: join(sized.dir, id, 'disk.ext4') });
    // ext4 keeps about 3% for its inode tables and journal.
    const { size: shown } = await rootDf(sized.runtime, id);
    expect(shown).toBeLessThanOrEqual(bytes);
    expect(shown).toBeGreaterThan(bytes * 0.96);
    await sized.runtime.destroy(id);
  });
});

describe('a write past the quota', () => {
  const id = sandboxId('disk-full');

  it('fails with ENOSPC inside, and the host loses no more than the quota', async () => {
    await small.runtime.create(id);
    const before = hostFree(small.dir);
    const filled = await run(small.runtime, id, 'head -c 1G /dev/zero > /root/big; echo "exit $?"; sync');
    expect(filled.stderr).toContain('No space left on device');
    expect(filled.stdout).toBe('exit 1\n');
    expect((await rootDf(small.runtime, id)).available).toBeLessThan(MiB);
    // Without the quota the host would have lost the whole 1 GiB; other writers on this host
    // (the stack) may take some meanwhile, hence the margin.
    expect(before - hostFree(small.dir)).toBeLessThan((quotaMiB + 128) * MiB);
  });

  it('leaves the sandbox answering; a file write is refused until space is freed', async () => {
    expect((await run(small.runtime, id, 'echo alive')).stdout).toBe('alive\n');
    const refused = await refusal(small.runtime.writeFile(id, '/root/more', new Uint8Array(8 * MiB)));
    expect(refused.message).toContain('No space left on device');

    expect((await run(small.runtime, id, 'rm /root/big && echo freed')).stdout).toBe('freed\n');
    expect(await small.runtime.writeFile(id, '/root/small.txt', 'fits')).toEqual({
      path: '/root/small.txt',
      size_bytes: 4,
    });
    expect(text(await small.runtime.readFile(id, '/root/small.txt'))).toBe('fits');
  });

  it('keeps files and quota over a restart of its processes', async () => {
    const pid = (await small.runtime.status(id)).initPid;
    if (pid === null) throw new Error(`${id} has no init`);
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => processGone(pid), { timeout: 5000 }).toBe(true);
    expect(text(await small.runtime.readFile(id, '/root/small.txt'))).toBe('fits');
    expect((await rootDf(small.runtime, id)).size).toBeLessThanOrEqual(quotaMiB * MiB);
    expect(loopDevicesOf(join(small.dir, id, 'disk.ext4'))).toHaveLength(1);
  });
});

describe('fork', () => {
  it('copies the files, just written, into a layer of the same quota', async () => {
    const source = sandboxId('disk-source');
    const copy = sandboxId('disk-copy');
    await small.runtime.create(source);
    // Written just before the fork: still in the page cache inside, which the fork flushes.
    const written = await run(
      small.runtime,
      source,
      'head -c 100M /dev/urandom > /root/big && md5sum /root/big',
    );
    const status = await small.runtime.fork(source, copy);

    expect(status.limits.disk).toEqual({
      applied: true,
      bytes: quotaMiB * MiB,
      image: join(small.dir, copy, 'disk.ext4'),
    });
    expect((await run(small.runtime, copy, 'md5sum /root/big')).stdout).toBe(written.stdout);
    expect((await rootDf(small.runtime, copy)).size).toBe((await rootDf(small.runtime, source)).size);
    // The copy's quota binds as the source's does: 100 MB of its 256 MiB are taken.
    const more = await run(small.runtime, copy, 'head -c 200M /dev/zero > /root/more');
    expect(more.stderr).toContain('No space left on device');
    expect((await run(small.runtime, source, 'ls /root')).stdout).toBe('big\n');
  });
});

describe('destroy', () => {
  it('removes the image and lets go of its loop device', async () => {
    const id = sandboxId('disk-gone');
    await small.runtime.create(id);
    const image = join(small.dir, id, 'disk.ext4');
    expect(loopDevicesOf(image)).toHaveLength(1);
    await small.runtime.destroy(id);
    expect(existsSync(join(small.dir, id))).toBe(false);
    await expect.poll(() => loopDevicesOf(image), { timeout: 5000 }).toEqual([]);
  });
});

describe('where layers get no quota', () => {
  it('creates the sandbox on the host disk and says why its disk is not limited', async () => {
    const id = sandboxId('disk-unlimited');
    const status = await unlimited.runtime.create(id);
    expect(status.limits.disk).toEqual({ applied: false, reason: "turned off by the runtime's options" });
    expect((await rootDf(unlimited.runtime, id)).size).toBe(
      statfsSync(unlimited.dir).blocks * statfsSync(unlimited.dir).bsize,
    );
    await unlimited.runtime.destroy(id);
  });
});
