export type DependencyCheck = 'ok' | 'unreachable';

export interface WatchTimings {
  /** Between the end of one round of probes and the start of the next. */
  intervalMs: number;
  /** A probe that has not answered true by then is `unreachable`. */
  timeoutMs: number;
}

/** Half a second between rounds, a second per probe: an outage is known within about 1.5 s. */
export const defaultWatchTimings: WatchTimings = { intervalMs: 500, timeoutMs: 1_000 };

/**
 * Probes each dependency (Postgres, Kafka) in rounds, every probe bounded, and keeps the last
 * answers. A request asks `away()` and is refused at once while a dependency it needs is
 * unreachable, instead of each finding out by waiting; /readyz reads the same answers, so
 * polling it costs the dependencies nothing more.
 */
export class DependencyWatch<Name extends string> {
  private readonly checks = new Map<Name, DependencyCheck>();
  private readonly running = new Map<Name, Promise<boolean>>();
  /** Per dependency, what `awaySignal` hands out until it is next seen unreachable. */
  private readonly goingAway = new Map<Name, AbortController>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly probes: Readonly<Record<Name, () => Promise<boolean>>>,
    private readonly timings: WatchTimings = defaultWatchTimings,
    /** Lets go of what the probes hold (their own connections), once stopped. */
    private readonly release: () => Promise<unknown> = async () => undefined,
  ) {}

  /** Runs the first round (so the first answers are known), then one round per interval. */
  async start(): Promise<void> {
    await this.round();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.release().catch(() => undefined);
  }

  /** The last answer; `ok` before the first round ended. */
  check(name: Name): DependencyCheck {
    return this.checks.get(name) ?? 'ok';
  }

  /** The first of `names` last seen unreachable, if any. */
  away(names: readonly Name[]): Name | undefined {
    return names.find((name) => this.check(name) === 'unreachable');
  }

  /**
   * A signal aborted when `name` is next seen unreachable (already aborted while it is): work in
   * flight against a dependency that hangs is given up on within one round, not when its own
   * timeout, sized for slow but live work, ends.
   */
  awaySignal(name: Name): AbortSignal {
    if (this.check(name) === 'unreachable') return AbortSignal.abort(new DependencyGone(name));
    let controller = this.goingAway.get(name);
    if (!controller) {
      controller = new AbortController();
      this.goingAway.set(name, controller);
    }
    return controller.signal;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.round().finally(() => this.schedule()), this.timings.intervalMs);
    // A watch never keeps a process alive on its own.
    this.timer.unref();
  }

  private async round(): Promise<void> {
    const names = Object.keys(this.probes) as Name[];
    const answers = await Promise.all(
      names.map((name) => probeWithin(() => this.probeOnce(name), this.timings.timeoutMs)),
    );
    names.forEach((name, index) => {
      this.checks.set(name, answers[index]!);
      if (answers[index] === 'unreachable') {
        this.goingAway.get(name)?.abort(new DependencyGone(name));
        this.goingAway.delete(name);
      }
    });
  }

  /**
   * A probe still unanswered from an earlier round is waited on again, not doubled: against a
   * server that stopped answering, each round would otherwise hold one more connection.
   */
  private probeOnce(name: Name): Promise<boolean> {
    let probe = this.running.get(name);
    if (!probe) {
      probe = this.probes[name]()
        .catch(() => false)
        .finally(() => this.running.delete(name));
      this.running.set(name, probe);
    }
    return probe;
  }
}

/** Why an `awaySignal` aborted: the dependency was seen unreachable. */
export class DependencyGone extends Error {
  constructor(readonly dependency: string) {
    super(`${dependency} was seen unreachable`);
    this.name = 'DependencyGone';
  }
}

/** `probe` answered true within `timeoutMs`; a probe that throws or is late is `unreachable`. */
export async function probeWithin(
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<DependencyCheck> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    const answered = await Promise.race([probe().catch(() => false), late]);
    return answered ? 'ok' : 'unreachable';
  } finally {
    clearTimeout(timer);
  }
}
