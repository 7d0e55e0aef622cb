import { describe, expect, it } from 'vitest';
import { apiReadiness, readyWhen } from '../../../api/readiness.ts';

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
