import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchGatherer } from '../../../consumers/gather.ts';

afterEach(() => {
  vi.useRealTimers();
});

const recording = (limits: { maxMessages: number; maxWaitMs: number; minIntervalMs?: number }) => {
  const writes: number[][] = [];
  const gatherer = new BatchGatherer<number>(limits, async (items) => {
    writes.push([...items]);
  });
  return { writes, gatherer };
};

describe('BatchGatherer', () => {
  it('writes at once when every announced batch has been added, as one write', async () => {
    const { writes, gatherer } = recording({ maxMessages: 100, maxWaitMs: 60_000 });
    gatherer.expect();
    gatherer.expect();
    const first = gatherer.add([1, 2]);
    expect(writes).toEqual([]);
    const second = gatherer.add([3]);
    await Promise.all([first, second]);
    expect(writes).toEqual([[1, 2, 3]]);
  });

  it('writes what it has after maxWaitMs when an announced batch is slow to come', async () => {
    vi.useFakeTimers();
    const { writes, gatherer } = recording({ maxMessages: 100, maxWaitMs: 250 });
    gatherer.expect();
    gatherer.expect();
    const first = gatherer.add([1]);
    await vi.advanceTimersByTimeAsync(249);
    expect(writes).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await first;
    const late = gatherer.add([2]);
    await late;
    expect(writes).toEqual([[1], [2]]);
  });

  it('writes without waiting for a batch that is withdrawn', async () => {
    const { writes, gatherer } = recording({ maxMessages: 100, maxWaitMs: 60_000 });
    gatherer.expect();
    gatherer.expect();
    const first = gatherer.add([1]);
    gatherer.withdraw();
    await first;
    expect(writes).toEqual([[1]]);
  });

  it('starts the write at once when it holds maxMessages, and gathers the next batches apart', async () => {
    const { writes, gatherer } = recording({ maxMessages: 3, maxWaitMs: 60_000 });
    gatherer.expect();
    gatherer.expect();
    await gatherer.add([1, 2, 3]);
    expect(writes).toEqual([[1, 2, 3]]);
    await gatherer.add([4]);
    expect(writes).toEqual([[1, 2, 3], [4]]);
  });

  it('fails every caller of a failed write, and the next batches go to a new write', async () => {
    let attempt = 0;
    const gatherer = new BatchGatherer<number>({ maxMessages: 100, maxWaitMs: 60_000 }, async () => {
      attempt += 1;
      if (attempt === 1) throw new Error('store refused');
    });
    gatherer.expect();
    gatherer.expect();
    const first = gatherer.add([1]);
    const second = gatherer.add([2]);
    await expect(first).rejects.toThrow('store refused');
    await expect(second).rejects.toThrow('store refused');
    gatherer.expect();
    await expect(gatherer.add([3])).resolves.toBeUndefined();
  });

  it('with minIntervalMs, starts the next write no sooner than that after the last began; batches meanwhile join it', async () => {
    vi.useFakeTimers();
    const { writes, gatherer } = recording({ maxMessages: 100, maxWaitMs: 250, minIntervalMs: 1000 });
    gatherer.expect();
    await gatherer.add([1]);
    expect(writes).toEqual([[1]]);
    gatherer.expect();
    const second = gatherer.add([2]);
    await vi.advanceTimersByTimeAsync(500);
    gatherer.expect();
    const third = gatherer.add([3]);
    await vi.advanceTimersByTimeAsync(499);
    expect(writes).toEqual([[1]]);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all([second, third]);
    expect(writes).toEqual([[1], [2, 3]]);
  });

  it('with minIntervalMs, still writes at once a write that holds maxMessages', async () => {
    vi.useFakeTimers();
    const { writes, gatherer } = recording({ maxMessages: 2, maxWaitMs: 250, minIntervalMs: 1000 });
    gatherer.expect();
    await gatherer.add([1]);
    gatherer.expect();
    await gatherer.add([2, 3]);
    expect(writes).toEqual([[1], [2, 3]]);
  });
});
