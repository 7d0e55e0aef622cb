import { describe, expect, it } from 'vitest';
import { recordRun, restartDelay, restartHistoryLength } from '../../../infra/restarts.ts';

const policy = { firstDelayMs: 500, maxDelayMs: 30_000, stableAfterMs: 30_000 };

describe('restartDelay', () => {
  it('restarts after the first delay when nothing crashed before, or the run was stable', () => {
    expect(restartDelay([], policy)).toBe(500);
    expect(restartDelay([120_000], policy)).toBe(500);
    expect(restartDelay([1_000, 1_000, 30_000], policy)).toBe(500);
  });

  it('doubles the delay for each short run in a row', () => {
    expect(restartDelay([1_000], policy)).toBe(500);
    expect(restartDelay([1_000, 2_000], policy)).toBe(1_000);
    expect(restartDelay([1_000, 2_000, 0], policy)).toBe(2_000);
    expect(restartDelay([0, 0, 0, 0, 0, 0], policy)).toBe(16_000);
  });

  it('stops doubling at the cap', () => {
    expect(restartDelay([0, 0, 0, 0, 0, 0, 0], policy)).toBe(30_000);
    expect(restartDelay(Array(2_000).fill(0), policy)).toBe(30_000);
  });

  it('counts only the crashes since the last stable run', () => {
    expect(restartDelay([0, 0, 0, 0, 0, 45_000, 0, 0], policy)).toBe(1_000);
    expect(restartDelay([0, 0, 0, 0, 0, 29_999], policy)).toBe(16_000);
  });

  it('follows the policy it is given', () => {
    const quick = { firstDelayMs: 100, maxDelayMs: 250, stableAfterMs: 1_000 };
    expect([[], [0], [0, 0], [0, 0, 0], [0, 0, 1_000]].map((runs) => restartDelay(runs, quick))).toEqual([
      100, 100, 200, 250, 100,
    ]);
  });
});

describe('recordRun', () => {
  it('appends the run and keeps a bounded history that still reaches the cap', () => {
    let history: number[] = [];
    for (let run = 0; run < 40; run++) history = recordRun(history, run);
    expect(history).toHaveLength(restartHistoryLength);
    expect(history.at(-1)).toBe(39);
    expect(
      restartDelay(
        history.map(() => 0),
        policy,
      ),
    ).toBe(30_000);
  });
});
