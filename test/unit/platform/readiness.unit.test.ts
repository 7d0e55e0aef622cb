import { describe, expect, it } from 'vitest';
import { DependencyWatch } from '../../../platform/dependency-watch.ts';
import { apiReadiness, watchedReadiness } from '../../../platform/readiness.ts';

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

describe('watchedReadiness', () => {
  it('names each store, and is not ready while one of them is unreachable', async () => {
    let clickhouseUp = true;
    const watch = new DependencyWatch(
      { postgres: async () => true, clickhouse: async () => clickhouseUp },
      { intervalMs: 60_000, timeoutMs: 100 },
    );
    await watch.start();
    const readiness = watchedReadiness(watch, ['postgres', 'clickhouse']);
    expect(await readiness()).toEqual({ status: 'ready', checks: { postgres: 'ok', clickhouse: 'ok' } });
    watch.stop();

    clickhouseUp = false;
    const down = new DependencyWatch(
      { postgres: async () => true, clickhouse: async () => clickhouseUp },
      { intervalMs: 60_000, timeoutMs: 100 },
    );
    await down.start();
    expect(await watchedReadiness(down, ['postgres', 'clickhouse'])()).toEqual({
      status: 'not_ready',
      checks: { postgres: 'ok', clickhouse: 'unreachable' },
    });
    down.stop();
  });
});
