import type { GatherLimits } from '../projections/projection.ts';

// Gathers the batches that several partitions deliver at about the same time into one write.
// ClickHouse wants few, large inserts (each insert is a part that background merges rewrite):
// at 9,000 spans/s the spans projection wrote 15 inserts a second of about 600 spans, one per
// partition's batch, and ClickHouse merged 14 times more rows than it was sent.
//
// A write starts as soon as every batch being prepared (announced with `expect`) has been added,
// so no batch waits for one that is not coming; `maxWaitMs` bounds the wait for a slow one. With
// `minIntervalMs` it starts no sooner than that after the last write began (a full write excepted):
// the partitions' next batches join it meanwhile.

interface Gathering<T> {
  items: T[];
  done: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

export class BatchGatherer<T> {
  private open: Gathering<T> | undefined;
  /** Batches announced and not yet added or withdrawn. */
  private preparing = 0;
  /** When the last write began (ms since the epoch). */
  private lastWriteAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly limits: GatherLimits,
    private readonly write: (items: T[]) => Promise<void>,
  ) {}

  /** A partition's batch is being prepared: the next write waits for it (up to maxWaitMs). */
  expect(): void {
    this.preparing += 1;
  }

  /** An announced batch has nothing to add after all. */
  withdraw(): void {
    this.preparing -= 1;
    if (this.open && this.preparing === 0) this.flushWhenDue(this.open);
  }

  /** Adds an announced batch; settles once the write holding it succeeded or failed. */
  add(items: readonly T[]): Promise<void> {
    this.preparing -= 1;
    const gathering = this.open ?? this.start();
    gathering.items.push(...items);
    if (gathering.items.length >= this.limits.maxMessages) this.flush(gathering);
    else if (this.preparing === 0) this.flushWhenDue(gathering);
    return gathering.done;
  }

  /** Writes now, or when `minIntervalMs` since the last write has passed, whichever is later. */
  private flushWhenDue(gathering: Gathering<T>): void {
    const dueInMs = this.lastWriteAt + (this.limits.minIntervalMs ?? 0) - Date.now();
    if (dueInMs <= 0) {
      this.flush(gathering);
      return;
    }
    clearTimeout(gathering.timer);
    gathering.timer = setTimeout(() => this.flush(gathering), dueInMs);
  }

  private start(): Gathering<T> {
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const gathering: Gathering<T> = { items: [], done, resolve, reject, timer: undefined as never };
    gathering.timer = setTimeout(() => this.flushWhenDue(gathering), this.limits.maxWaitMs);
    this.open = gathering;
    return gathering;
  }

  private flush(gathering: Gathering<T>): void {
    if (this.open !== gathering) return;
    this.open = undefined;
    clearTimeout(gathering.timer);
    this.lastWriteAt = Date.now();
    this.write(gathering.items).then(gathering.resolve, gathering.reject);
  }
}
