import { describe, expect, it } from 'vitest';
import { apiReadiness, cachedFor, probeWithin, readyWhen } from '../../../api/readiness.ts';

describe('apiReadiness', () => {
  it('is ready when the keys are caught up and Postgres and Kafka answer', () => {
    expect(apiReadiness({ keys: 'caught_up', postgres: 'ok', kafka: 'ok' })).toEqual({
      status: 'ready',
      checks: { keys: 'caught_up', postgres: 'ok', kafka: 'ok' },
    });
  });

  it('is starting while the keys are read and every dependency answers', () => {
    expect(apiReadiness({ keys: 'starting', postgres: 'ok', kafka: 'ok' }).status).toBe('starting');
  });

  it.each([
    { keys: 'caught_up', postgres: 'unreachable', kafka: 'ok' },
    { keys: 'caught_up', postgres: 'ok', kafka: 'unreachable' },
    { keys: 'starting', postgres: 'unreachable', kafka: 'unreachable' },
  ] as const)('is not_ready when a dependency is unreachable: %o', (checks) => {
    expect(apiReadiness(checks)).toEqual({ status: 'not_ready', checks });
  });
});

describe('readyWhen', () => {
  it('follows its flag and lists no check', async () => {
    let flag = false;
    const readiness = readyWhen(() => flag);
    expect(await readiness()).toEqual({ status: 'starting', checks: {} });
    flag = true;
    expect(await readiness()).toEqual({ status: 'ready', checks: {} });
  });
});

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

describe('cachedFor', () => {
  it('reuses an answer for ttl milliseconds after its probe started, then probes again', async () => {
    let now = 0;
    let probes = 0;
    const cached = cachedFor(
      1_000,
      async () => ++probes,
      () => now,
    );
    expect(await cached()).toBe(1);
    now = 999;
    expect(await cached()).toBe(1);
    now = 1_000;
    expect(await cached()).toBe(2);
    expect(probes).toBe(2);
  });
});
