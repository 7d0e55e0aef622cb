import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Component } from '../../../infra/stack/component.ts';
import { type Daemon, isAlive, readPid, startDaemon, stopDaemon } from '../../../infra/stack/processes.ts';
import { type StackWatch, superviseStack } from '../../../infra/stack/supervise.ts';
import { eventually } from '../../harness/platform.ts';

// The stack's watcher over stand-in components whose daemons are shell processes: what it
// restarts (a crash) and what it leaves alone (a stop), retries and leftovers. Every wait is for
// the watcher's own start call or log line.

const dir = mkdtempSync(join(tmpdir(), 'orrery-stack-watch-'));
const lines: string[] = [];
const log = {
  info: (line: string) => lines.push(line),
  warn: (line: string) => lines.push(line),
  error: (line: string) => lines.push(line),
};
const policy = { firstDelayMs: 10, maxDelayMs: 100, stableAfterMs: 60_000 };
const watches: StackWatch[] = [];
const daemons: Daemon[] = [];

afterAll(async () => {
  for (const watch of watches) watch.stop();
  for (const daemon of daemons) await stopDaemon(daemon, 1_000);
});

interface StandIn extends Component {
  starts: number;
  /** Starts that throw before any process is started. */
  failing: number;
  /** For each start, whether the leftover pid (if any) was still alive at that moment. */
  leftoverAliveAtStart: boolean[];
}

/** A component whose daemon runs `script` under sh; `$LEFTOVER` names a file for a child's pid. */
function standIn(name: string, script = 'sleep 60'): StandIn {
  const daemon: Daemon = { name, pidFile: join(dir, `${name}.pid`), logFile: join(dir, `${name}.log`) };
  daemons.push(daemon);
  const leftoverFile = join(dir, `${name}.leftover`);
  const component: StandIn = {
    name,
    port: 0,
    daemons: [daemon],
    starts: 0,
    failing: 0,
    leftoverAliveAtStart: [],
    install() {},
    healthy: async () => readPid(daemon) !== undefined,
    async start() {
      component.starts++;
      const leftover = leftoverPid(leftoverFile);
      if (leftover !== undefined) component.leftoverAliveAtStart.push(isAlive(leftover));
      if (component.failing-- > 0) throw new Error('refused to start');
      startDaemon(daemon, { command: 'sh', args: ['-c', script], env: { LEFTOVER: leftoverFile } });
    },
  };
  return component;
}

function leftoverPid(file: string): number | undefined {
  try {
    return Number(readFileSync(file, 'utf8').trim()) || undefined;
  } catch {
    return undefined;
  }
}

function watch(components: Component[]): void {
  watches.push(superviseStack(components, log, { pollMs: 20, policy }));
}

function crash(component: Component): number {
  const pid = readPid(component.daemons[0]!)!;
  process.kill(pid, 'SIGKILL');
  return pid;
}

describe('superviseStack', () => {
  it('restarts a daemon that crashed, and leaves one stopped on purpose stopped', async () => {
    const stopped = standIn('stopped');
    const crashed = standIn('crashed');
    await stopped.start(() => {});
    await crashed.start(() => {});
    watch([stopped, crashed]);
    await stopDaemon(stopped.daemons[0]!);
    const pid = crash(crashed);
    // The watcher looks at `stopped` before `crashed` on every poll, and `stopped` had ended before
    // `crashed` was killed: once `crashed` is back, `stopped` was seen without its pid file.
    await eventually(
      async () => (readPid(crashed.daemons[0]!) !== undefined && crashed.starts === 2) || undefined,
      5_000,
    );
    expect(stopped.starts).toBe(1);
    expect(readPid(stopped.daemons[0]!)).toBeUndefined();
    expect(lines).toContain(`crashed: crashed (pid ${pid}) died; restarting in 0.01 s`);
    expect(
      lines.some((line) =>
        line.startsWith(`crashed: restarted (crashed (pid ${readPid(crashed.daemons[0]!)}))`),
      ),
    ).toBe(true);
  });

  it('tries again, later each time, when a restart fails', async () => {
    const flaky = standIn('flaky');
    await flaky.start(() => {});
    watch([flaky]);
    flaky.failing = 2;
    crash(flaky);
    await eventually(
      async () => (readPid(flaky.daemons[0]!) !== undefined && flaky.starts === 4) || undefined,
      5_000,
    );
    expect(lines.filter((line) => line.startsWith('flaky: restart failed'))).toEqual([
      'flaky: restart failed, next attempt in 0.02 s: refused to start',
      'flaky: restart failed, next attempt in 0.04 s: refused to start',
    ]);
  });

  it("kills what is left of the dead daemon's process group before starting it again", async () => {
    const parent = standIn('parent', 'sleep 60 & echo $! > "$LEFTOVER"; wait');
    await parent.start(() => {});
    await eventually(async () => leftoverPid(join(dir, 'parent.leftover')), 5_000, 'the child pid');
    watch([parent]);
    crash(parent);
    await eventually(async () => parent.starts === 2 || undefined, 5_000);
    expect(parent.leftoverAliveAtStart).toEqual([false]);
  });
});
