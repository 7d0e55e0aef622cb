// When a process that died is started again: at once the first time, then twice as long after
// each further crash in a row, up to a cap; a run that stayed up long enough counts as recovered,
// so the next crash starts from the first delay again. Used by the platform's supervisor
// (infra/platform.ts) and the stack's watcher (infra/stack/supervise.ts).

export interface RestartPolicy {
  firstDelayMs: number;
  maxDelayMs: number;
  /** A run at least this long resets the backoff. */
  stableAfterMs: number;
}

export const restartPolicy: RestartPolicy = { firstDelayMs: 500, maxDelayMs: 30_000, stableAfterMs: 30_000 };

/** The runs a restart delay is judged from; older ones cannot change it once the cap is reached. */
export const restartHistoryLength = 16;

/**
 * The delay before the next start, from how long each earlier run stayed up (oldest first, the
 * run that just ended last): the first delay doubled for every short run in a row but the first.
 */
export function restartDelay(uptimesMs: readonly number[], policy: RestartPolicy = restartPolicy): number {
  let crashesInARow = 0;
  for (let index = uptimesMs.length - 1; index >= 0; index--) {
    if (uptimesMs[index]! >= policy.stableAfterMs) break;
    crashesInARow++;
  }
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.max(0, crashesInARow - 1));
}

/** Adds a run's uptime to a history, keeping the last `restartHistoryLength`. */
export function recordRun(uptimesMs: readonly number[], uptimeMs: number): number[] {
  return [...uptimesMs, uptimeMs].slice(-restartHistoryLength);
}
