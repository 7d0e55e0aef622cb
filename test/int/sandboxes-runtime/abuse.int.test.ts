import { readdirSync, readFileSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpuPeriodMicros, sizeLimits } from '../../../sandbox-runtime/limits.ts';
import { runawayCpuShare } from '../../../sandbox-runtime/runaway.ts';
import type { SandboxStatus } from '../../../sandbox-runtime/runtime.ts';
import { startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { exportSpans, llmSpan, tracingOrg } from '../../harness/tracing.ts';
import { forkBombCommand, tasksOf, untilAtLimit } from './fork-bomb.ts';
import { givenRuntime, prepareTimeoutMs, sandboxId } from './given.ts';

// Abuse does not spread (issue 48): in one sandbox every core kept busy, a 6 GiB allocation, a
// write up to its disk quota and a fork bomb, all at once; meanwhile a second sandbox and the OTLP
// endpoint keep answering, and no process of the stack is touched. Each limit is seen doing its
// work in the abuser's own cgroups. How fast the others answer meanwhile (p99 against idle) is
// a figure, not a test: bench/sandbox-abuse.ts prints it.

const quotaMiB = 512; // the disk filled here; a size's own quota (8 GiB and up) would take minutes
const { runtime, cleanup } = givenRuntime({ diskMiB: quotaMiB });
const abuser = sandboxId('abuser');
const bystander = sandboxId('bystander');
let platform: TestPlatform;
let status: SandboxStatus;
let bystanderStatus: SandboxStatus;
// As the sandbox host runs it, with a calm period short enough to see the sandbox turn back.
const runaways = runtime.watchRunaways({ intervalMs: 50, calmMs: 1000 });

beforeAll(async () => {
  platform = await startTestPlatform({ consumers: true });
  await runtime.prepare();
  status = await runtime.create(abuser, { size: 'small' });
  bystanderStatus = await runtime.create(bystander, { size: 'small' });
}, prepareTimeoutMs);
afterAll(async () => {
  runaways.stop();
  await cleanup();
  await platform.stop();
});

/** A v1 cgroup file of the abuser's, where its size's limit was written (status().limits). */
function cgroupFile(controller: 'memory' | 'cpu', file: string, of = status): string {
  const limit = of.limits[controller];
  if (!limit?.applied) throw new Error(`no ${controller} limit here: ${JSON.stringify(limit)}`);
  return readFileSync(join(limit.dir, file), 'utf8');
}

const field = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);

/** The stack's long-lived processes (Postgres' postmaster, ClickHouse, Kafka's JVMs) with their start times. */
function stackProcesses(): Map<string, string> {
  const found = new Map<string, string>();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const [, ppid, , , , , , , , , , , , , , , , , startTime] = stat
        .slice(stat.lastIndexOf(')') + 2)
        .split(' ');
      const parent = readFileSync(`/proc/${ppid}/comm`, 'utf8').trim();
      const postmaster = comm === 'postgres' && parent !== 'postgres';
      if (postmaster || comm.startsWith('clickhouse') || comm === 'java')
        found.set(pid, `${comm} ${startTime}`);
    } catch {
      // gone meanwhile: not a long-lived one
    }
  }
  return found;
}

describe("the host's cgroup moves", () => {
  it('skip the grace period that would let a fork bomb hold back every fork on the host', async () => {
    const host = await runtime.prepare();
    expect(host.cgroupMoves).toMatchObject({ favored: true });
    const mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
    expect(mountinfo).toMatch(/ - cgroup2 \S+ \S*favordynmods/);
  });
});

describe("a sandbox's disk bandwidth", () => {
  it('is bounded on its own loop device, writeback included, and the bound goes with the sandbox', async () => {
    const diskIo = status.limits.diskIo;
    if (!diskIo.applied) throw new Error(`no disk bandwidth bound here: ${diskIo.reason}`);
    expect(diskIo.bytesPerSecond).toBe(sizeLimits.small.diskMBps * 1_000_000);
    const rules = () => readFileSync('/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device', 'utf8');
    expect(rules()).toContain(`${diskIo.device} ${diskIo.bytesPerSecond}`);
    expect(readFileSync(`/sys/class/bdi/${diskIo.device}/strict_limit`, 'utf8').trim()).toBe('1');
    const other = sandboxId('bounded');
    const otherStatus = await runtime.create(other, { size: 'standard' });
    const otherIo = otherStatus.limits.diskIo;
    expect(otherIo).toMatchObject({
      applied: true,
      bytesPerSecond: sizeLimits.standard.diskMBps * 1_000_000,
    });
    await runtime.destroy(other);
    if (otherIo.applied) expect(rules()).not.toContain(`${otherIo.device} `);
  });
});

describe('a sandbox abused in every way at once', () => {
  it('keeps it to itself: its own cores, memory, disk and tasks; the others keep answering', async () => {
    const { key } = await tracingOrg(platform);
    const stack = stackProcesses();
    expect(stack.size).toBeGreaterThanOrEqual(3);
    const throttledBefore = field(cgroupFile('cpu', 'cpu.stat'), 'nr_throttled');
    const disk = statfsSync(runtime.dir);
    const freeBefore = disk.bavail * disk.bsize;

    // Every core busy (four spinning shells for a size of one core), then the 6 GiB allocation
    // (bytes repeated: every page written), the disk filled, and a fork bomb last: at its task
    // limit nothing more could start.
    await runtime.exec(
      abuser,
      'for i in 1 2 3 4; do nohup sh -c "while :; do :; done" >/dev/null 2>&1 & done',
    );
    const allocation = runtime.exec(abuser, 'python3 -c \'b = b"x" * (6 * 2**30); print(len(b))\'', {
      timeoutSeconds: 120,
    });
    const fill = runtime.exec(abuser, 'dd if=/dev/zero of=/root/fill bs=1M 2>&1', {
      timeoutSeconds: 300,
    });
    const [allocated, filled] = await Promise.all([allocation, fill]);
    await runtime.exec(abuser, forkBombCommand);
    await untilAtLimit(tasksOf(status));
    // Its limit refusing forks, the abuser runs at idle priority on a quarter of its core.
    await expect.poll(() => cgroupFile('cpu', 'cpu.idle').trim(), { interval: 20, timeout: 5000 }).toBe('1');
    expect(cgroupFile('cpu', 'cpu.cfs_quota_us').trim()).toBe(String(runawayCpuShare * cpuPeriodMicros));
    expect(runaways.watch.isIdle(abuser)).toBe(true);
    expect(cgroupFile('cpu', 'cpu.idle', bystanderStatus).trim()).toBe('0');

    // Meanwhile the other sandbox and the OTLP endpoint answer, every time.
    for (let round = 0; round < 20; round += 1) {
      expect((await runtime.exec(bystander, 'echo fine')).result).toMatchObject({
        exit_code: 0,
        stdout: 'fine\n',
      });
      expect((await exportSpans(platform.api, { spans: [llmSpan()], key })).status).toBe(200);
    }

    // Memory: the allocation was killed inside the sandbox's cgroup, which never went past its limit.
    expect(allocated.result.exit_code).toBe(137);
    const memory = cgroupFile('memory', 'memory.oom_control');
    expect(field(memory, 'oom_kill')).toBeGreaterThanOrEqual(1);
    expect(Number(cgroupFile('memory', 'memory.max_usage_in_bytes'))).toBeLessThanOrEqual(
      Number(cgroupFile('memory', 'memory.limit_in_bytes')),
    );
    // Disk: the write stopped at the quota; the host's disk lost no more than that.
    expect(filled.result.stdout).toContain('No space left on device');
    const after = statfsSync(runtime.dir);
    expect(freeBefore - after.bavail * after.bsize).toBeLessThan((quotaMiB + 64) * 1024 * 1024);
    // Cores: the quota held the spinners back (the kernel throttled the cgroup).
    expect(field(cgroupFile('cpu', 'cpu.stat'), 'nr_throttled')).toBeGreaterThan(throttledBefore);
    // Tasks: the bomb filled the abuser's limit only; the stack's processes are the ones from before.
    const stackAfter = stackProcesses();
    for (const [pid, identity] of stack)
      expect(stackAfter.get(pid), `${identity} (pid ${pid})`).toBe(identity);

    // And the abuser itself is not lost: a restart ends it all and keeps its files.
    await runtime.restart(abuser);
    expect((await runtime.exec(abuser, 'ls -s /root/fill | cut -d" " -f1')).result.exit_code).toBe(0);
    // Calm again, it runs at its normal priority.
    await expect.poll(() => runaways.watch.isIdle(abuser), { interval: 50, timeout: 10_000 }).toBe(false);
    expect(cgroupFile('cpu', 'cpu.idle').trim()).toBe('0');
    expect(cgroupFile('cpu', 'cpu.cfs_quota_us').trim()).toBe(
      String(sizeLimits.small.cpus * cpuPeriodMicros),
    );
  }, 600_000);
});
