import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parentPid } from '../../../sandbox-runtime/host.ts';
import type { SandboxRuntime } from '../../../sandbox-runtime/runtime.ts';
import { layoutOf } from '../../../sandbox-runtime/sandbox-fs.ts';
import { type IdRange, rootOnHost, sandboxRootOnHost } from '../../../sandbox-runtime/user-namespace.ts';
import { givenRuntime, pathFromHost, prepareTimeoutMs, sandboxId } from './given.ts';

// Each sandbox has its own range of host ids (user-namespace.ts): root inside one is not root
// inside another on the host, while the files on disk keep the one shared range, shown to each
// sandbox as its own through idmapped mounts, so a fork or a template copies them as they are.

const { runtime, dir, cleanup } = givenRuntime();
const shared = givenRuntime({ idRanges: 'shared' });
const first = sandboxId('ids-a');
const second = sandboxId('ids-b');

beforeAll(async () => {
  await Promise.all([runtime.prepare(), shared.runtime.prepare()]);
  await runtime.create(first);
  await runtime.create(second);
}, prepareTimeoutMs);
afterAll(async () => {
  await cleanup();
  await shared.cleanup();
});

async function run(on: SandboxRuntime, id: string, command: string): Promise<string> {
  const { result } = await on.exec(id, command);
  expect(result.stderr).toBe('');
  expect(result.exit_code).toBe(0);
  return result.stdout;
}

async function rangeOf(on: SandboxRuntime, id: string): Promise<IdRange> {
  return (await on.status(id)).idRange;
}

/** A file of the sandbox's layer as it is on disk: seen from bwrap's namespace, which has the image mounted. */
function onDisk(id: string, path: string) {
  const init = JSON.parse(readFileSync(layoutOf(dir, id).record, 'utf8')).init.pid as number;
  const monitor = parentPid(init);
  if (monitor === undefined) throw new Error(`${id}'s init has no parent`);
  return statSync(join('/proc', String(monitor), 'root', layoutOf(dir, id).disk, 'upper', path));
}

describe("a sandbox's id range", () => {
  it('is its own: root inside two sandboxes are two host uids, neither the shared range', async () => {
    const [a, b] = [await rangeOf(runtime, first), await rangeOf(runtime, second)];
    expect(a.applied && b.applied).toBe(true);
    expect(rootOnHost(a)).not.toBe(rootOnHost(b));
    expect([rootOnHost(a), rootOnHost(b)]).not.toContain(sandboxRootOnHost);
    expect(await run(runtime, first, 'cat /proc/self/uid_map')).toMatch(
      new RegExp(`^\\s*0\\s+${rootOnHost(a)}\\s+65536\\n$`),
    );
    // The init runs as the sandbox's root, seen from the host.
    const init = (await runtime.status(first)).initPid;
    expect(statSync(`/proc/${init}`).uid).toBe(rootOnHost(a));
  });

  it('owns the base and its own files inside; on disk they stay in the shared range', async () => {
    const listing = 'stat -c "%u %g %n" / /etc/passwd /usr/bin/perl';
    const expected = '0 0 /\n0 0 /etc/passwd\n0 0 /usr/bin/perl\n';
    expect(await run(runtime, first, listing)).toBe(expected);
    expect(await run(runtime, second, listing)).toBe(expected);

    await run(runtime, first, 'echo mine > /root/mine && touch /root/user && chown 1000:1000 /root/user');
    await run(runtime, first, 'echo changed >> /etc/motd'); // a file of the base, copied up
    expect(await run(runtime, first, 'stat -c "%u %g %n" /root/mine /root/user /etc/motd')).toBe(
      '0 0 /root/mine\n1000 1000 /root/user\n0 0 /etc/motd\n',
    );
    const range = rootOnHost(await rangeOf(runtime, first));
    expect(statSync(pathFromHost(dir, first, 'root/user')).uid).toBe(range + 1000);
    expect([
      onDisk(first, 'root/mine').uid,
      onDisk(first, 'root/user').uid,
      onDisk(first, 'etc/motd').uid,
    ]).toEqual([sandboxRootOnHost, sandboxRootOnHost + 1000, sandboxRootOnHost]);
  });

  it('is kept over a restart, and a fork gets its own, with the files owned as before', async () => {
    const range = await rangeOf(runtime, first);
    await runtime.restart(first);
    expect(await rangeOf(runtime, first)).toEqual(range);

    const copy = sandboxId('ids-fork');
    await runtime.fork(first, copy);
    const copied = await rangeOf(runtime, copy);
    expect(copied.applied).toBe(true);
    expect(rootOnHost(copied)).not.toBe(rootOnHost(range));
    expect(rootOnHost(copied)).not.toBe(rootOnHost(await rangeOf(runtime, second)));
    expect(
      await run(runtime, copy, 'stat -c "%u %g %n" /root/mine /root/user; echo more >> /root/mine'),
    ).toBe('0 0 /root/mine\n1000 1000 /root/user\n');
  });

  it('is the shared one where the runtime is told so, and the status says why', async () => {
    const id = sandboxId('ids-shared');
    const status = await shared.runtime.create(id);
    expect(status.idRange).toEqual({ applied: false, reason: "turned off by the runtime's options" });
    expect(await run(shared.runtime, id, 'cat /proc/self/uid_map; stat -c "%u" /etc/passwd')).toMatch(
      new RegExp(`^\\s*0\\s+${sandboxRootOnHost}\\s+65536\\n0\\n$`),
    );
  });
});
