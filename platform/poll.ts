// The one way product code waits for something another process does (a projection catching up,
// the kernel freezing a cgroup, a browser opening its tab): ask, pause, ask again, until a
// deadline. Tests wait with test/harness/platform.ts's `eventually`.

type Answer<T> = T | undefined | false;

export interface PollOptions {
  timeoutMs: number;
  /** The pause between two questions. */
  intervalMs: number;
  /** When given, the pause doubles from `intervalMs` up to this. */
  maxIntervalMs?: number;
}

/**
 * Asks `check` until it answers (anything but `undefined` or `false`) and returns the answer, or
 * `undefined` once `timeoutMs` has passed. It asks at once, and once more at the deadline; a
 * `check` that throws ends the wait with its error (for what will never come).
 */
export async function poll<T>(
  check: () => Answer<T> | Promise<Answer<T>>,
  { timeoutMs, intervalMs, maxIntervalMs = intervalMs }: PollOptions,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = intervalMs; ; pause = Math.min(pause * 2, maxIntervalMs)) {
    const answer = await check();
    if (answer !== undefined && answer !== false) return answer;
    const left = deadline - Date.now();
    if (left <= 0) return undefined;
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
  }
}

/** A wait that ran out of time, naming what was awaited. */
export class WaitTimedOut extends Error {
  constructor(
    readonly awaited: string,
    readonly timeoutMs: number,
    hint?: string,
  ) {
    super(`timed out after ${timeoutMs} ms waiting for ${awaited}${hint === undefined ? '' : ` (${hint})`}`);
    this.name = 'WaitTimedOut';
  }
}

/**
 * `poll`, where running out of time is an error: a WaitTimedOut naming `awaited` ("the sandbox's
 * init to start"), with `hint` (what to check) when given.
 */
export async function waitFor<T>(
  awaited: string,
  check: () => Answer<T> | Promise<Answer<T>>,
  options: PollOptions & { hint?: string },
): Promise<T> {
  const answer = await poll(check, options);
  if (answer === undefined) throw new WaitTimedOut(awaited, options.timeoutMs, options.hint);
  return answer;
}
