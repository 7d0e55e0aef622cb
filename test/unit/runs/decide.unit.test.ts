import { describe, expect, it } from 'vitest';
import { decide, type RunCommand, type RunCommandBody } from '../../../domain/runs/decide.ts';
import { RunError } from '../../../domain/runs/errors.ts';
import { stretches, stretchUsage } from '../../../domain/runs/metering.ts';
import { checkResult, resultLimitBytes } from '../../../domain/runs/result.ts';
import {
  ceilingSeconds,
  evolve,
  meteredSeconds,
  type Run,
  type RunState,
  type RunStatus,
} from '../../../domain/runs/run.ts';
import type { NetworkPolicy } from '../../../domain/sandboxes/network.ts';

// The run decider (domain/runs/decide.ts): every command against every status, the placement's
// refusals, per-stream sequence numbers, the seconds billed at each end, the result's rules.

const t0 = new Date('2026-11-24T12:00:00.000Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
let count = 0;
const command = (body: RunCommandBody, now = t0): RunCommand =>
  ({ ...body, eventId: `ev_${++count}`, runId: 'run_1', orgId: 'org_1', now }) as RunCommand;

const placeBody = (
  overrides: Partial<Extract<RunCommandBody, { type: 'PlaceRun' }>> = {},
): RunCommandBody => ({
  type: 'PlaceRun',
  name: 'train',
  size: 'small',
  command: 'python train.py',
  envNames: ['TOKEN'],
  files: [{ path: 'train.py', sizeBytes: 10 }],
  // 100 micro-dollars at 20 a second: five seconds.
  ceilingMicrodollars: 100,
  placedBy: { kind: 'key', keyId: 'key_1', personId: 'per_1' },
  hasCredit: true,
  sizeAvailable: true,
  host: 'host_a',
  network: { egress: 'open', allow: [], deny: [] },
  template: null,
  ...overrides,
});

/** Decides each command at its time and folds its events in. */
function given(steps: [RunCommandBody, number][], state: RunState = undefined): RunState {
  return steps.reduce<RunState>(
    (current, [body, seconds]) => decide(command(body, at(seconds)), current).reduce(evolve, current),
    state,
  );
}

const placed = () => given([[placeBody(), 0]]);
const running = () =>
  given([
    [placeBody(), 0],
    [{ type: 'ReportStarted' }, 1],
  ]);
const states: Record<RunStatus | 'none', () => RunState> = {
  none: () => undefined,
  placed,
  running,
  succeeded: () => given([[{ type: 'ReportExit', exitCode: 0 }, 3]], running()),
  failed: () => given([[{ type: 'ReportExit', exitCode: 3 }, 3]], running()),
  stopped: () =>
    given([[{ type: 'StopRun', stoppedBy: { kind: 'person', personId: 'per_2' } }, 3]], running()),
  ceiling_reached: () => given([[{ type: 'ReachCeiling' }, 6]], running()),
};

type Expected = string | { refused: string };
function outcome(body: RunCommandBody, state: RunState): Expected {
  try {
    const events = decide(command(body, at(4)), state);
    return events.length === 0 ? 'nothing' : events.map((event) => event.type).join(',');
  } catch (error) {
    if (error instanceof RunError) return { refused: error.code };
    throw error;
  }
}

const transitions: [string, RunCommandBody, Record<RunStatus | 'none', Expected>][] = [
  [
    'place',
    placeBody(),
    {
      none: 'RunPlaced',
      placed: 'nothing',
      running: 'nothing',
      succeeded: 'nothing',
      failed: 'nothing',
      stopped: 'nothing',
      ceiling_reached: 'nothing',
    },
  ],
  [
    'report started',
    { type: 'ReportStarted' },
    {
      none: 'nothing',
      placed: 'RunStarted',
      running: 'nothing',
      succeeded: 'nothing',
      failed: 'nothing',
      stopped: 'nothing',
      ceiling_reached: 'nothing',
    },
  ],
  [
    'append output',
    { type: 'AppendOutput', stream: 'stdout', text: 'x' },
    {
      none: 'nothing',
      placed: 'nothing',
      running: 'RunOutputAppended',
      succeeded: 'nothing',
      failed: 'nothing',
      stopped: 'nothing',
      ceiling_reached: 'nothing',
    },
  ],
  [
    'meter',
    { type: 'MeterRun', stretchSeconds: 2 },
    {
      none: 'nothing',
      placed: 'nothing',
      running: 'RunMetered',
      succeeded: 'nothing',
      failed: 'nothing',
      stopped: 'nothing',
      ceiling_reached: 'nothing',
    },
  ],
  [
    'store result',
    { type: 'StoreResult', contents: new TextEncoder().encode('{}') },
    {
      none: 'nothing',
      placed: 'RunResultStored',
      running: 'RunResultStored',
      succeeded: 'nothing',
      failed: 'nothing',
      stopped: 'nothing',
      ceiling_reached: 'nothing',
    },
  ],
  [
    'report exit',
    { type: 'ReportExit', exitCode: 0 },
    {
      none: 'nothing',
      placed: 'RunFinished',
      running: 'RunFinished',
      succeeded: 'nothing',
      failed: 'nothing',
      stopped: 'nothing',
      ceiling_reached: 'nothing',
    },
  ],
  [
    'fail',
    { type: 'FailRun', failure: 'could not start' },
    {
      none: 'nothing',
      placed: 'RunFinished',
      running: 'RunFinished',
      succeeded: 'nothing',
      failed: 'nothing',
      stopped: 'nothing',
      ceiling_reached: 'nothing',
    },
  ],
  [
    'stop',
    { type: 'StopRun', stoppedBy: { kind: 'key', keyId: 'key_1', personId: null } },
    {
      none: { refused: 'not_found' },
      placed: 'RunStopped',
      running: 'RunStopped',
      succeeded: 'nothing',
      failed: 'nothing',
      stopped: 'nothing',
      ceiling_reached: 'nothing',
    },
  ],
  [
    'reach the ceiling',
    { type: 'ReachCeiling' },
    {
      none: 'nothing',
      placed: 'nothing',
      running: 'RunCeilingReached',
      succeeded: 'nothing',
      failed: 'nothing',
      stopped: 'nothing',
      ceiling_reached: 'nothing',
    },
  ],
];

describe('every command against every status', () => {
  for (const [name, body, expected] of transitions)
    it(name, () => {
      const actual = Object.fromEntries(
        Object.entries(states).map(([status, state]) => [status, outcome(body, state())]),
      );
      expect(actual).toEqual(expected);
    });

  it('ends are final: the status after each end is the one it set', () => {
    for (const status of ['succeeded', 'failed', 'stopped', 'ceiling_reached'] as const)
      expect(states[status]()?.status).toBe(status);
  });
});

describe('placement refuses before anything is recorded', () => {
  it.each<[string, Partial<Extract<RunCommandBody, { type: 'PlaceRun' }>>, string, string]>([
    ['no credit', { hasCredit: false }, 'insufficient_credit', 'ceiling_cents'],
    ['a size this deployment cannot hold', { sizeAvailable: false }, 'size_unavailable', 'size'],
    [
      'a ceiling below one second of the size',
      { ceilingMicrodollars: 19 },
      'invalid_request',
      'ceiling_cents',
    ],
    [
      'a ceiling below one second of xl',
      { size: 'xl', ceilingMicrodollars: 159 },
      'invalid_request',
      'ceiling_cents',
    ],
  ])('%s', (_, overrides, code, param) => {
    const error = (() => {
      try {
        decide(command(placeBody(overrides)), undefined);
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(RunError);
    expect(error).toMatchObject({ code, param });
  });

  it('takes a ceiling of exactly one second', () => {
    expect(decide(command(placeBody({ ceilingMicrodollars: 20 })), undefined).map((e) => e.type)).toEqual([
      'RunPlaced',
    ]);
  });
});

describe("the run's network (issue 48)", () => {
  it('records the policy its sandbox is made with, and the run has it', () => {
    const network: NetworkPolicy = { egress: 'none', allow: [], deny: [] };
    const events = decide(command(placeBody({ network })), undefined);
    expect(events).toEqual([expect.objectContaining({ type: 'RunPlaced', network })]);
    expect(events.reduce(evolve, undefined as RunState)?.network).toEqual(network);
  });
});

describe("the run's command (issue 50): an argument vector or a shell command line", () => {
  it.each<[string, string | string[]]>([
    ['a vector, each word as given', ['python3', '-c', 'print("a b")', '$HOME', '*.txt', 'two\nlines', '']],
    ['a shell command line', 'make && ./test'],
  ])('records %s, and the run has it unchanged', (_, line) => {
    const events = decide(command(placeBody({ command: line })), undefined);
    expect(events).toEqual([expect.objectContaining({ type: 'RunPlaced', command: line })]);
    expect(events.reduce(evolve, undefined as RunState)?.command).toEqual(line);
  });

  it('a placement retried for the same run decides nothing, whichever form it sends', () => {
    const state = given([[placeBody({ command: ['sh', '-c', 'echo hi'] }), 0]]);
    expect(decide(command(placeBody({ command: ['sh', '-c', 'echo hi'] })), state)).toEqual([]);
    expect(decide(command(placeBody({ command: 'echo hi' })), state)).toEqual([]);
    expect(state?.command).toEqual(['sh', '-c', 'echo hi']);
  });
});

describe('output', () => {
  it('numbers each stream from 1 without gaps, apart from the other', () => {
    const state = given(
      [
        [{ type: 'AppendOutput', stream: 'stdout', text: 'a' }, 2],
        [{ type: 'AppendOutput', stream: 'stderr', text: 'b' }, 2],
        [{ type: 'AppendOutput', stream: 'stdout', text: 'c' }, 2],
      ],
      running(),
    );
    expect(state?.lastSeq).toEqual({ stdout: 2, stderr: 1 });
    const next = decide(command({ type: 'AppendOutput', stream: 'stderr', text: 'd' }), state);
    expect(next).toMatchObject([{ type: 'RunOutputAppended', stream: 'stderr', seq: 2, text: 'd' }]);
  });

  it('appends nothing for empty text, and a NUL reads as U+FFFD', () => {
    expect(decide(command({ type: 'AppendOutput', stream: 'stdout', text: '' }), running())).toEqual([]);
    expect(
      decide(command({ type: 'AppendOutput', stream: 'stdout', text: 'a\u0000b' }), running()),
    ).toMatchObject([{ text: 'a\uFFFDb' }]);
  });
});

describe('seconds billed', () => {
  const run = running() as Run;

  it('counts each second begun from the start, never past the ceiling', () => {
    expect(ceilingSeconds(run)).toBe(5);
    expect(meteredSeconds(run, at(1))).toBe(0);
    expect(meteredSeconds(run, new Date(at(1).getTime() + 1))).toBe(1);
    expect(meteredSeconds(run, at(3.5))).toBe(3);
    expect(meteredSeconds(run, at(60))).toBe(5);
  });

  it('bills an exit its seconds so far, the ceiling exactly its seconds, a lost run what was recorded', () => {
    expect(given([[{ type: 'ReportExit', exitCode: 0 }, 3.2]], run)?.billedSeconds).toBe(3);
    expect(given([[{ type: 'ReachCeiling' }, 6.1]], run)?.billedSeconds).toBe(5);
    const metered = given([[{ type: 'MeterRun', stretchSeconds: 2 }, 4.5]], run);
    expect(metered?.recordedSeconds).toBe(2);
    expect(given([[{ type: 'FailRun', failure: 'gone', lost: true }, 60]], metered)?.billedSeconds).toBe(2);
  });

  it('a placed run never started is billed nothing', () => {
    expect(
      given([[{ type: 'StopRun', stoppedBy: { kind: 'person', personId: 'p' } }, 30]], placed())
        ?.billedSeconds,
    ).toBe(0);
  });

  it('records whole stretches only, once each', () => {
    expect(decide(command({ type: 'MeterRun', stretchSeconds: 2 }, at(2.5)), run)).toEqual([]);
    const once = given([[{ type: 'MeterRun', stretchSeconds: 2 }, 3.5]], run);
    expect(decide(command({ type: 'MeterRun', stretchSeconds: 2 }, at(4)), once)).toEqual([]);
  });

  it('cuts seconds into stretches whose usage ids name the run and the first second', () => {
    expect(stretches(0, 65, 30)).toEqual([
      [0, 30],
      [30, 60],
      [60, 65],
    ]);
    expect(stretches(30, 30, 30)).toEqual([]);
    expect(stretches(4, 5, 2)).toEqual([[4, 5]]);
    const usage = stretchUsage(run, [30, 60], { eventId: 'e', now: t0 });
    expect(usage).toMatchObject({
      requestId: 'run_1:30',
      model: 'run:small',
      endpoint: 'runs',
      seconds: 30,
      keyId: 'key_1',
    });
  });
});

describe('the result', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  it.each<[string, string, boolean]>([
    ['an object', '{"metrics":{"loss":0.1}}', true],
    ['an empty object', '{}', true],
    ['an array', '[1]', false],
    ['null', 'null', false],
    ['a number', '3', false],
    ['not JSON', '{metrics', false],
    ['a NUL inside', '{"a":"\\u0000"}', false],
  ])('%s', (_, text, ok) => {
    expect(checkResult(bytes(text)).ok).toBe(ok);
  });

  it('keeps up to the limit, not one byte more', () => {
    const object = (size: number) => bytes(`{"a":"${'x'.repeat(size - 8)}"}`);
    expect(object(resultLimitBytes)).toHaveLength(resultLimitBytes);
    expect(checkResult(object(resultLimitBytes)).ok).toBe(true);
    expect(checkResult(object(resultLimitBytes + 1)).ok).toBe(false);
  });

  it('the first result stays', () => {
    const stored = given([[{ type: 'StoreResult', contents: bytes('{"a":1}') }, 2]], running());
    expect(decide(command({ type: 'StoreResult', contents: bytes('{"a":2}') }), stored)).toEqual([]);
  });
});
