import { describe, expect, it } from 'vitest';
import { poll, WaitTimedOut, waitFor } from '../../../platform/poll.ts';

describe('poll', () => {
  it('returns the first answer, asking again after each pause', async () => {
    let asked = 0;
    const answer = await poll(() => (++asked === 3 ? 'ready' : undefined), {
      timeoutMs: 1000,
      intervalMs: 1,
    });
    expect(answer).toBe('ready');
    expect(asked).toBe(3);
  });

  it('takes false as no answer yet, and returns undefined at the deadline after a last question', async () => {
    let asked = 0;
    const started = Date.now();
    const answer = await poll(
      () => {
        asked += 1;
        return false;
      },
      { timeoutMs: 50, intervalMs: 20 },
    );
    expect(answer).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    expect(asked).toBeGreaterThanOrEqual(3); // at 0, 20, 40 and at the deadline
  });

  it('ends at once with the error of a check that throws', async () => {
    await expect(
      poll(
        () => {
          throw new Error('gone');
        },
        { timeoutMs: 1000, intervalMs: 1 },
      ),
    ).rejects.toThrow('gone');
  });

  it('doubles the pause up to maxIntervalMs', async () => {
    const times: number[] = [];
    await poll(() => times.push(Date.now()) === 5, { timeoutMs: 1000, intervalMs: 5, maxIntervalMs: 20 });
    const pauses = times.slice(1).map((time, index) => time - (times[index] ?? 0));
    expect(pauses[3]).toBeGreaterThanOrEqual(19); // 5, 10, 20, 20
  });
});

describe('waitFor', () => {
  it('returns the answer', async () => {
    expect(await waitFor('a number', () => 7, { timeoutMs: 10, intervalMs: 1 })).toBe(7);
  });

  it('throws WaitTimedOut naming what was awaited, and the hint', async () => {
    const waited = waitFor('the tab', () => false, { timeoutMs: 20, intervalMs: 5, hint: 'is it running?' });
    await expect(waited).rejects.toBeInstanceOf(WaitTimedOut);
    await expect(waited).rejects.toThrow('timed out after 20 ms waiting for the tab (is it running?)');
  });
});
