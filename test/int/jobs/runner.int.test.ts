import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Job, jobLock, startJobs } from '../../../jobs/runner.ts';
import { exclusively, LockHeld } from '../../../platform/advisory-lock.ts';
import { logger } from '../../../platform/logger.ts';
import { jobRuns } from '../../../platform/metrics.ts';
import { createPgPool, type PgPool } from '../../../platform/postgres.ts';

// Jobs in any number of processes (issue 47): two job runners, standing for two jobs processes,
// each with its own pool of lock sessions, run one job; a run of it holds the job's Postgres lock,
// so the other's times pass, skipped, until the run has ended.

let pools: PgPool[];
beforeAll(() => {
  pools = [createPgPool(1), createPgPool(1), createPgPool(1)];
});
afterAll(() => Promise.all(pools.map((pool) => pool.end())));

/** How many of the job's times have ended with this outcome, in this test process. */
const outcomes = async (job: string, outcome: 'ok' | 'skipped' | 'failed') =>
  (await jobRuns.get()).values.find((value) => value.labels.job === job && value.labels.outcome === outcome)
    ?.value ?? 0;

it('runs a job in one of two runners at a time, the other skipping its times while a run holds the lock', async () => {
  const name = `test-${randomUUID()}`;
  const held = Promise.withResolvers<void>();
  const runs: string[] = [];
  let underWay = 0;
  let mostAtOnce = 0;
  const job = (runner: string): Job => ({
    name,
    everyMs: 20,
    async run() {
      runs.push(runner);
      underWay += 1;
      mostAtOnce = Math.max(mostAtOnce, underWay);
      // The first run stays open until the test lets it end.
      await held.promise;
      underWay -= 1;
    },
  });
  const runners = ['one', 'two'].map((runner, index) =>
    startJobs([job(runner)], { locks: pools[index]!, logger, firstRunAfterMs: 0 }),
  );
  try {
    await expect.poll(() => runs.length).toBe(1);
    // The other runner's times come and find the lock held: skipped, not failed.
    await expect.poll(() => outcomes(name, 'skipped')).toBeGreaterThanOrEqual(3);
    expect(runs).toHaveLength(1);
    expect(await outcomes(name, 'failed')).toBe(0);
    // Meanwhile a run by hand hears that the job is under way.
    await expect(exclusively(pools[2]!, jobLock(name), async () => 'by hand')).rejects.toBeInstanceOf(
      LockHeld,
    );
    held.resolve();
    await expect.poll(() => outcomes(name, 'ok')).toBeGreaterThanOrEqual(3);
  } finally {
    held.resolve();
    await Promise.all(runners.map((runner) => runner.stop()));
  }
  expect(mostAtOnce).toBe(1);
  expect(await outcomes(name, 'failed')).toBe(0);
  // Ended, the runs left the lock free.
  expect(await exclusively(pools[2]!, jobLock(name), async () => 'by hand')).toBe('by hand');
});

it('skips a time quietly when the job finds its own lock held (a posting run by hand)', async () => {
  const name = `test-${randomUUID()}`;
  const posting = `orrery:test-posting-${randomUUID()}`;
  const [handHolds, byHand] = [Promise.withResolvers<void>(), Promise.withResolvers<void>()];
  const handRun = exclusively(pools[2]!, posting, () => {
    handHolds.resolve();
    return byHand.promise;
  });
  await handHolds.promise;
  const runner = startJobs(
    [{ name, everyMs: 20, run: () => exclusively(pools[1]!, posting, async () => 'posted') }],
    { locks: pools[0]!, logger, firstRunAfterMs: 0 },
  );
  try {
    await expect.poll(() => outcomes(name, 'skipped')).toBeGreaterThanOrEqual(2);
    expect(await outcomes(name, 'failed')).toBe(0);
    byHand.resolve();
    await handRun;
    await expect.poll(() => outcomes(name, 'ok')).toBeGreaterThanOrEqual(1);
  } finally {
    byHand.resolve();
    await runner.stop();
  }
});
