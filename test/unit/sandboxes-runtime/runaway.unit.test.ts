import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nextRunawayState, RunawayWatch } from '../../../sandbox-runtime/runaway.ts';
import type { SandboxRecord } from '../../../sandbox-runtime/state.ts';

const calmMs = 5000;
const count = (refused: number) => ({ current: 1024, max: 1024, refused });

describe('nextRunawayState: a sandbox whose task limit refuses forks runs at idle CPU priority', () => {
  it('leaves a sandbox as it is on the first look, whatever it refused before', () => {
    expect(nextRunawayState(undefined, count(500), 0, calmMs)).toEqual({
      state: { refused: 500 },
      idle: false,
    });
  });

  it('turns idle when the limit refused a fork since the last look', () => {
    const { state, idle } = nextRunawayState({ refused: 500 }, count(501), 1000, calmMs);
    expect(idle).toBe(true);
    expect(state).toEqual({ refused: 501, lastRefusalAt: 1000 });
  });

  it('stays idle until no fork was refused for the calm period, then turns back', () => {
    const since = { refused: 501, lastRefusalAt: 1000 };
    expect(nextRunawayState(since, count(501), 1000 + calmMs - 1, calmMs).idle).toBe(true);
    expect(nextRunawayState(since, count(501), 1000 + calmMs, calmMs).idle).toBe(false);
  });

  it('counts the calm period from the latest refusal', () => {
    const { state } = nextRunawayState({ refused: 501, lastRefusalAt: 1000 }, count(502), 4000, calmMs);
    expect(nextRunawayState(state, count(502), 1000 + calmMs, calmMs).idle).toBe(true);
  });

  it('starts over when the counter does (a restart made new cgroups)', () => {
    expect(nextRunawayState({ refused: 900, lastRefusalAt: 1000 }, count(0), 1100, calmMs)).toEqual({
      state: { refused: 0 },
      idle: false,
    });
  });
});

describe('RunawayWatch: the kernel flag follows the refusals', () => {
  // A sandbox's cgroup files as the kernel shows them, in a folder of the test's own.
  const sandbox = (id: string, idleFlag: '0' | '1') => {
    const dir = mkdtempSync(join(tmpdir(), 'orrery-runaway-'));
    const write = (file: string, text: string) => writeFileSync(join(dir, file), text);
    write('pids.current', '1024\n');
    write('pids.max', '1024\n');
    write('pids.events', 'max 0\n');
    write('cpu.idle', `${idleFlag}\n`);
    const limit = { applied: true, version: 1, dir };
    const record = {
      id,
      size: 'small',
      limits: { pids: limit, cpu: limit, memory: limit },
    } as unknown as SandboxRecord;
    return {
      record,
      refuse: (total: number) => write('pids.events', `max ${total}\n`),
      flag: () => readFileSync(join(dir, 'cpu.idle'), 'utf8').trim(),
      quota: () => readFileSync(join(dir, 'cpu.cfs_quota_us'), 'utf8').trim(),
    };
  };

  it('sets the flag and a quarter of the cores while forks are refused; both go back once calm', () => {
    const abuser = sandbox('abuser', '0');
    const watch = new RunawayWatch({ calmMs: 1000 });
    watch.look([abuser.record], 0);
    abuser.refuse(40);
    watch.look([abuser.record], 100);
    expect([abuser.flag(), abuser.quota(), watch.isIdle('abuser')]).toEqual(['1', '25000', true]);
    watch.look([abuser.record], 1099);
    expect(abuser.flag()).toBe('1');
    watch.look([abuser.record], 1100);
    expect([abuser.flag(), abuser.quota(), watch.isIdle('abuser')]).toEqual(['0', '100000', false]);
  });

  it('clears a flag an earlier host process left set', () => {
    const left = sandbox('left', '1');
    new RunawayWatch().look([left.record], 0);
    expect([left.flag(), left.quota()]).toEqual(['0', '100000']);
  });
});
