import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFrozenAndThawed, startCounter } from './counter.ts';
import { givenRuntime, prepareTimeoutMs, refusal, sandboxId, text } from './given.ts';

// The fallbacks for hosts without cgroup v2 freezing or overlayfs, forced on this host (which
// has both): SIGSTOP/SIGCONT of the sandbox's pid namespace, and a full copy of the base.

const { runtime, cleanup } = givenRuntime({ freezer: 'signals', filesystem: 'copy' });
const id = sandboxId('fallback');

beforeAll(async () => {
  await runtime.prepare();
}, prepareTimeoutMs);
afterAll(cleanup);

describe('without cgroup freezing and overlayfs', () => {
  it('creates a sandbox on a full copy of the base', async () => {
    expect(await runtime.create(id)).toMatchObject({
      state: 'running',
      freezer: 'signals',
      filesystem: 'copy',
    });
    expect((await runtime.exec(id, 'id -u; hostname; ls /work 2>&1 || true')).result.stdout).toBe(
      `0\n${id}\nls: cannot access '/work': No such file or directory\n`,
    );
  });

  it('stops with SIGSTOP and resumes with SIGCONT, processes intact', async () => {
    await startCounter(runtime, id);
    await expectFrozenAndThawed(runtime, id);
  });

  it('forks by copying and destroys', async () => {
    await runtime.writeFile(id, '/root/copied.txt', 'copied');
    const copy = sandboxId('fallback-copy');
    expect((await runtime.fork(id, copy)).filesystem).toBe('copy');
    expect(text(await runtime.readFile(copy, '/root/copied.txt'))).toBe('copied');
    await runtime.destroy(copy);
    expect((await refusal(runtime.status(copy))).code).toBe('not_found');
  });
});
