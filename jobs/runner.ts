import { exclusively, LockHeld } from '../platform/advisory-lock.ts';
import type { Logger } from '../platform/logger.ts';
import { jobRuns } from '../platform/metrics.ts';
import type { PgPool } from '../platform/postgres.ts';

// The jobs' timers (jobs/main.ts). Any number of jobs processes may run them: each run of a job
// holds the job's advisory lock (platform/advisory-lock.ts), so it runs in one process at a time,
// and a process whose time comes while another holds it lets that time pass quietly. Within a
// process, a job's time that comes while its run is still under way passes too.

export interface Job {
  /** Names the job in logs and metrics, and its lock. */
  readonly name: string;
  readonly everyMs: number;
  run(): Promise<unknown>;
}

export interface RunningJobs {
  /** No time comes any more; resolves once the runs under way have ended. */
  stop(): Promise<void>;
}

/** The advisory lock a job's runs hold. */
export const jobLock = (name: string) => `orrery:job:${name}`;

/**
 * Runs each job every `everyMs`, the first time `firstRunAfterMs` after the start (the stores it
 * needs are surely up by then), each run holding its job's lock on a session of `locks`: that pool
 * needs a connection for each job, apart from those the runs use.
 */
export function startJobs(
  jobs: readonly Job[],
  deps: { locks: PgPool; logger: Logger; firstRunAfterMs?: number },
): RunningJobs {
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<void>>();
  for (const job of jobs) {
    let busy = false;
    const tick = () => {
      if (busy) return;
      busy = true;
      const run = runOnce(job, deps).finally(() => {
        busy = false;
        running.delete(run);
      });
      running.add(run);
    };
    timers.push(setInterval(tick, job.everyMs));
    timers.push(setTimeout(tick, deps.firstRunAfterMs ?? 5_000).unref());
  }
  return {
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      await Promise.allSettled(running);
    },
  };
}

/** One time of a job: run (ok or failed), or skipped while another process runs it. */
async function runOnce(job: Job, deps: { locks: PgPool; logger: Logger }): Promise<void> {
  try {
    const result = await exclusively(deps.locks, jobLock(job.name), () => job.run());
    jobRuns.inc({ job: job.name, outcome: 'ok' });
    deps.logger.info({ job: job.name, result }, `${job.name} done`);
  } catch (error) {
    // The job's own work may find its lock held too (a posting run by hand, jobs/post-charges.ts).
    if (error instanceof LockHeld) {
      jobRuns.inc({ job: job.name, outcome: 'skipped' });
      deps.logger.debug(
        { job: job.name, lock: error.lock },
        `${job.name} skipped: another run holds its lock`,
      );
      return;
    }
    jobRuns.inc({ job: job.name, outcome: 'failed' });
    deps.logger.error({ job: job.name, err: error }, `${job.name} failed; it runs again at its next time`);
  }
}
