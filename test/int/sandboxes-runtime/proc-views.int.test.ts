import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poll } from '../../../platform/poll.ts';
import { sizeLimits } from '../../../sandbox-runtime/limits.ts';
import { procViewsLayout } from '../../../sandbox-runtime/proc-views.ts';
import type { SandboxRuntime } from '../../../sandbox-runtime/runtime.ts';
import { processGone } from './counter.ts';
import { givenRuntime, prepareTimeoutMs, sandboxId } from './given.ts';

// A sandbox sees itself in /proc, not the host (proc-views.ts): lxcfs answers its memory, cpus,
// load, uptime and cpu times from its own cgroups, and its kernel command line is empty. Where
// lxcfs cannot serve them the sandbox runs on with the kernel's /proc, and its status says why.

const shared = givenRuntime();
/** Its own lxcfs, which one test kills: the host's serves every other runtime here. */
const ownViews = mkdtempSync(join(tmpdir(), 'orrery-proc-views-'));
const own = givenRuntime({ procViewsDir: ownViews });
const off = givenRuntime({ procViews: 'off' });

const small = sandboxId('views-small');
const standard = sandboxId('views-standard');

beforeAll(async () => {
  await Promise.all([shared.runtime.prepare(), own.runtime.prepare(), off.runtime.prepare()]);
  await shared.runtime.create(small, { size: 'small' });
  await shared.runtime.create(standard, { size: 'standard' });
}, prepareTimeoutMs);
afterAll(async () => {
  await shared.cleanup();
  await own.cleanup();
  await off.cleanup();
  await stopLxcfs(ownViews);
  rmSync(ownViews, { recursive: true, force: true });
});

async function run(runtime: SandboxRuntime, id: string, command: string): Promise<string> {
  const { result } = await runtime.exec(id, command);
  expect(result.stderr).toBe('');
  return result.stdout;
}

/** MemTotal of /proc/meminfo, in kB. */
async function memTotal(runtime: SandboxRuntime, id: string): Promise<number> {
  return Number(/MemTotal:\s+(\d+) kB/.exec(await run(runtime, id, 'cat /proc/meminfo'))?.[1]);
}

const hostMemTotal = () => Number(/MemTotal:\s+(\d+) kB/.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1]);
const uptime = async (runtime: SandboxRuntime, id: string) =>
  Number((await run(runtime, id, 'cat /proc/uptime')).split(' ')[0]);

/** SIGTERM: lxcfs unmounts its folder as it ends. */
async function stopLxcfs(dir: string): Promise<void> {
  const pidFile = procViewsLayout(dir).pidFile;
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return; // already gone
  }
  await poll(() => processGone(pid), { timeoutMs: 5000, intervalMs: 20 });
}

describe("a sandbox's /proc", () => {
  it("shows its memory limit, not the host's: 2 GiB for small, 4 GiB for standard", async () => {
    expect((await shared.runtime.status(small)).procViews).toEqual({
      applied: true,
      dir: '/var/lib/orrery-proc-views',
    });
    expect(await memTotal(shared.runtime, small)).toBe(2 * 1024 * 1024);
    expect(await memTotal(shared.runtime, standard)).toBe(4 * 1024 * 1024);
    expect(hostMemTotal()).not.toBe(2 * 1024 * 1024);
    expect(await run(shared.runtime, small, "free -b | awk '/^Mem:/ { print $2 }'")).toBe(
      `${2 * 1024 ** 3}\n`,
    );
  });

  it('counts the cores of its CPU quota: 1 for small (cpuinfo, /proc/stat, the online count)', async () => {
    const counted =
      'grep -c ^processor /proc/cpuinfo; grep -c "^cpu[0-9]" /proc/stat; getconf _NPROCESSORS_ONLN';
    expect(await run(shared.runtime, small, counted)).toBe('1\n1\n1\n');
    expect(availableParallelism()).toBeGreaterThan(1);
    // A quota above the host's cores does not bind (limits.ts): lxcfs shows what binds.
    const standardCores = Math.min(sizeLimits.standard.cpus, availableParallelism());
    expect(await run(shared.runtime, standard, counted)).toBe(`${standardCores}\n`.repeat(3));
  });

  it('has its own uptime, which starts again when it restarts', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const before = await uptime(shared.runtime, small);
    expect(before).toBeGreaterThanOrEqual(1);
    const host = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    expect(before).toBeLessThan(host);
    await shared.runtime.restart(small);
    expect(await uptime(shared.runtime, small)).toBeLessThan(before);
  });

  it('has its own load: busy loops in one sandbox load it, not the other', async () => {
    const load = async (id: string) =>
      Number((await run(shared.runtime, id, 'cat /proc/loadavg')).split(' ')[0]);
    await shared.runtime.exec(
      standard,
      'for i in 1 2; do nohup sh -c "while :; do :; done" > /dev/null 2>&1 & done',
    );
    await expect.poll(() => load(standard), { timeout: 30_000, interval: 1000 }).toBeGreaterThan(0.3);
    expect(await load(small)).toBeLessThan(0.3);
    await shared.runtime.exec(standard, 'pkill -f "while :"');
  });

  it('hides the kernel command line', async () => {
    expect(readFileSync('/proc/cmdline', 'utf8').trim()).not.toBe('');
    expect(await run(shared.runtime, small, 'cat /proc/cmdline')).toBe('\n');
  });
});

let offId: string | undefined;
async function offSandbox(): Promise<string> {
  offId ??= (await off.runtime.create(sandboxId('views-off'))).id;
  return offId;
}

describe('without the views', () => {
  it("runs with the kernel's /proc and says why", async () => {
    const id = await offSandbox();
    expect((await off.runtime.status(id)).procViews).toEqual({
      applied: false,
      reason: "turned off by the runtime's options",
    });
    expect(await memTotal(off.runtime, id)).toBe(hostMemTotal());
  });

  it('runs where lxcfs cannot start, and says why', async () => {
    const notAFolder = join(ownViews, 'file');
    writeFileSync(notAFolder, '');
    const { runtime, cleanup } = givenRuntime({ procViewsDir: notAFolder });
    try {
      const id = sandboxId('views-refused');
      const status = await runtime.create(id);
      expect(status.procViews).toMatchObject({ applied: false });
      expect(JSON.stringify(status.procViews)).toContain('lxcfs could not start');
      expect(await memTotal(runtime, id)).toBe(hostMemTotal());
    } finally {
      await cleanup();
    }
  });
});

describe('lxcfs', () => {
  it('is started again when it died, its stale mount unmounted, for the next init', async () => {
    const id = sandboxId('views-again');
    await own.runtime.create(id);
    expect(await memTotal(own.runtime, id)).toBe(2 * 1024 * 1024);
    const pid = Number(readFileSync(procViewsLayout(ownViews).pidFile, 'utf8'));
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => processGone(pid), { timeout: 5000 }).toBe(true);
    // What a sandbox running meanwhile reads until its next start: lxcfs's mount, gone.
    const stale = (await own.runtime.exec(id, 'cat /proc/meminfo')).result;
    expect(stale.stderr).toContain('Transport endpoint is not connected');

    await own.runtime.restart(id);
    expect(await memTotal(own.runtime, id)).toBe(2 * 1024 * 1024);
    expect(Number(readFileSync(procViewsLayout(ownViews).pidFile, 'utf8'))).not.toBe(pid);
  });
});
