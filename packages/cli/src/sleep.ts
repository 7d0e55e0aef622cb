import { setTimeout as wait } from 'node:timers/promises';

// The tool's waits, in seconds. ORRERY_TEST_TIME_SCALE (a number above 1, for tests only, not
// documented for users) divides every wait: the tests run the API on a clock that goes that many
// times faster than real time (test/int/cli/given.ts), so tool and server agree on how long a
// wait was, and the server's own interval rule still judges the polling, in a fraction of the time.

export type Sleep = (seconds: number) => Promise<void>;

export function sleeper(env: Record<string, string | undefined>): Sleep {
  const scale = Number(env.ORRERY_TEST_TIME_SCALE);
  const divisor = Number.isFinite(scale) && scale > 1 ? scale : 1;
  return async (seconds) => {
    await wait((seconds * 1000) / divisor);
  };
}
