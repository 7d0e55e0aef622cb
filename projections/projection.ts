import type { StreamName } from '../schemas/events/topics.ts';

// What a projection is, to the consumer runtime that runs it (consumers/runtime.ts): the contract
// every file here fulfils. It lives here, below consumers/, so a projection needs nothing from
// the runtime that drives it.

export interface Delivered<E> {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  event: E;
}

/** What a consumer group does with its stream: decode each value, then write a batch durably. */
export interface Projection<E> {
  readonly groupId: string;
  readonly stream: StreamName;
  /**
   * The message's value as the projection's event, undefined to send it to the dead-letter topic:
   * decoded with its writer's schema and read as a wire object (`wire`), or, for a projection
   * that reads the protobuf bytes itself, from its framed bytes (`value`).
   */
  readonly from:
    | { wire(wire: Record<string, unknown>): E | undefined }
    | { value(value: Buffer): E | undefined };
  /**
   * Writes the batch to its store; idempotent, since a batch can be delivered again. `groupId` is
   * the group actually consuming (a test may run a projection under a group of its own), for
   * projections that store their position beside their rows.
   */
  project(batch: Delivered<E>[], groupId: string): Promise<void>;
  /**
   * The longest a fetch waits for `fetchMinBytes`, by default a second (groupConsumer): with more
   * than a record's bytes, how late a projection may learn of the first events after a quiet spell.
   */
  readonly maxWaitMs?: number;
  /** The bytes a fetch waits for, up to `maxWaitMs`: by default a record's (see trickleFetchMinBytes). */
  readonly fetchMinBytes?: number;
  /**
   * For writes that want to be few and large (a ClickHouse insert; a Postgres transaction that
   * costs more than the rows in it): the partitions' batches are consumed concurrently and
   * gathered into one `project` call (consumers/gather.ts), each partition's offsets committed
   * once that write is done.
   */
  readonly gather?: GatherLimits;
}

/**
 * For a projection of a steady trickle of small events that writes at most once in a while (the
 * usage stream's, at most once a second): a fetch answered at each produce request that lands
 * gains it nothing. At 500 title requests a second the usage groups' fetches doubled Kafka's CPU
 * (230 to 450 ms per 1,000 requests) and took the consumers 170; waiting for 64 KiB, 280 and 105.
 * The spans' projection waits too, for more and not as long (spans-clickhouse.ts).
 */
export const trickleFetchMinBytes = 64 * 1024;

/** How a gathered write is bounded (consumers/gather.ts). */
export interface GatherLimits {
  /** A gathered write starts at once when it holds this many messages. */
  maxMessages: number;
  /** How long the first batch of a write waits for the others. */
  maxWaitMs: number;
  /**
   * The least time from one write's start to the next's, unless a write holds `maxMessages`:
   * batches that come sooner wait and join one write. Without it a steady trickle (a request log
   * at 500 requests a second) became one insert per partition's fetch, some 50 a second.
   */
  minIntervalMs?: number;
}
