import { afterEach, describe, expect, it, vi } from 'vitest';
import { DependencyGone, DependencyWatch, probeWithin } from '../../../platform/dependency-watch.ts';

describe('probeWithin', () => {
  it('is ok when the probe answers true in time', async () => {
    expect(await probeWithin(async () => true, 1_000)).toBe('ok');
  });

  it('is unreachable when the probe answers false, or throws', async () => {
    expect(await probeWithin(async () => false, 1_000)).toBe('unreachable');
    expect(await probeWithin(() => Promise.reject(new Error('ECONNREFUSED')), 1_000)).toBe('unreachable');
  });

  it('is unreachable when the probe does not answer within the timeout', async () => {
    const started = performance.now();
    expect(await probeWithin(() => new Promise<boolean>(() => undefined), 50)).toBe('unreachable');
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('DependencyWatch', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('knows each answer after its first round, and follows later rounds', async () => {
    vi.useFakeTimers();
    let kafkaUp = true;
    const watch = new DependencyWatch(
      { postgres: async () => true, kafka: async () => kafkaUp },
      { intervalMs: 500, timeoutMs: 1_000 },
    );
    await watch.start();
    expect(watch.away(['postgres', 'kafka'])).toBeUndefined();

    kafkaUp = false;
    await vi.advanceTimersByTimeAsync(500);
    expect(watch.check('kafka')).toBe('unreachable');
    expect(watch.away(['postgres'])).toBeUndefined();
    expect(watch.away(['postgres', 'kafka'])).toBe('kafka');

    kafkaUp = true;
    await vi.advanceTimersByTimeAsync(500);
    expect(watch.check('kafka')).toBe('ok');
    watch.stop();
  });

  it('waits on a probe still unanswered instead of starting another', async () => {
    vi.useFakeTimers();
    let started = 0;
    let answer: ((up: boolean) => void) | undefined;
    const watch = new DependencyWatch(
      {
        postgres: () => {
          started += 1;
          return new Promise<boolean>((resolve) => {
            answer = resolve;
          });
        },
      },
      { intervalMs: 100, timeoutMs: 200 },
    );
    const first = watch.start();
    await vi.advanceTimersByTimeAsync(200);
    await first;
    expect(watch.check('postgres')).toBe('unreachable');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toBe(1);

    answer?.(true);
    await vi.advanceTimersByTimeAsync(50);
    expect(watch.check('postgres')).toBe('ok');
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toBe(2);
    watch.stop();
  });

  it('aborts the signal it handed out when the dependency is next seen away, and hands out a fresh one after', async () => {
    vi.useFakeTimers();
    let clickhouseUp = true;
    const watch = new DependencyWatch(
      { clickhouse: async () => clickhouseUp },
      { intervalMs: 500, timeoutMs: 1_000 },
    );
    await watch.start();
    const inFlight = watch.awaySignal('clickhouse');
    expect(watch.awaySignal('clickhouse')).toBe(inFlight);
    await vi.advanceTimersByTimeAsync(500);
    expect(inFlight.aborted).toBe(false);

    clickhouseUp = false;
    await vi.advanceTimersByTimeAsync(500);
    expect(inFlight.aborted).toBe(true);
    expect(inFlight.reason).toBeInstanceOf(DependencyGone);
    // While it is away, work is given up at once.
    expect(watch.awaySignal('clickhouse').aborted).toBe(true);

    clickhouseUp = true;
    await vi.advanceTimersByTimeAsync(500);
    expect(watch.awaySignal('clickhouse').aborted).toBe(false);
    await watch.stop();
  });
});
