import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { config } from '../platform/config.ts';
import {
  type Consumer,
  createKafka,
  type EachBatchPayload,
  groupConsumer,
  type KafkaMessage,
} from '../platform/kafka.ts';
import type { KafkaSettings } from '../platform/kafka-settings.ts';
import type { Logger } from '../platform/logger.ts';
import {
  consumerLag,
  messagesConsumed,
  messagesDeadLettered,
  projectionBatchDuration,
  projectionBatchSize,
} from '../platform/metrics.ts';
import { decodeValue } from '../platform/registry.ts';
import type { EventProducer } from '../producers/producer.ts';
import type { Delivered, Projection } from '../projections/projection.ts';
import { deadLetterTopic, topics } from '../schemas/events/topics.ts';
import { isRegistryUnavailable, isTransientStoreError } from './errors.ts';
import { BatchGatherer } from './gather.ts';

export interface ConsumerHooks {
  /** Test seam: runs after the batch is durable and before its offsets are committed. */
  afterProjectBeforeCommit?(batch: { topic: string; partition: number; count: number }): Promise<void>;
}

export interface RunningConsumer {
  readonly groupId: string;
  /** Stops fetching, lets the batch in hand finish and commit, then leaves the group. */
  stop(): Promise<void>;
}

interface DeadLetter {
  message: KafkaMessage;
  reason: 'undecodable' | 'unknown_event' | 'apply_failed';
  error: string;
}

const maxBackoffMs = 30_000;

export async function runConsumer<E>(
  projection: Projection<E>,
  deps: {
    registry: SchemaRegistry;
    producer: EventProducer;
    logger: Logger;
    hooks?: ConsumerHooks;
    /** The cluster, ORRERY_KAFKA_* unless given (a test's second cluster). */
    kafka?: KafkaSettings;
  },
): Promise<RunningConsumer> {
  const { groupId } = projection;
  const log = deps.logger.child({ group: groupId });
  const consumer: Consumer = groupConsumer(createKafka(`orrery-${groupId}`, deps.kafka), groupId, {
    maxWaitMs: projection.maxWaitMs,
    minBytes: projection.fetchMinBytes,
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topics[projection.stream].name] });

  /** While the schema registry cannot answer, the message is decoded again with backoff. */
  async function decode(
    message: KafkaMessage,
    isRunning: () => boolean,
  ): Promise<{ event: E } | { dead: DeadLetter }> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        if (!message.value) throw new Error('message has no value');
        const { from } = projection;
        const event =
          'value' in from
            ? from.value(message.value)
            : from.wire(await decodeValue(deps.registry, message.value));
        if (event !== undefined) return { event };
        return { dead: { message, reason: 'unknown_event', error: 'not an event this projection knows' } };
      } catch (error) {
        if (!isRegistryUnavailable(error))
          return { dead: { message, reason: 'undecodable', error: String(error) } };
        if (!isRunning()) throw error;
        const delay = Math.min(maxBackoffMs, 200 * 2 ** attempt);
        log.warn({ err: error, attempt, delay }, 'schema registry unavailable; decoding again');
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /**
   * Retries transient store errors with backoff, forever. librdkafka heartbeats on its own thread;
   * a store down for longer than the group's poll interval (5 minutes) hands the partition to
   * another member, which is safe: nothing of the batch was committed, and projections are
   * idempotent.
   */
  async function projectDurably(batch: Delivered<E>[], isRunning: () => boolean): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await projection.project(batch, groupId);
        return;
      } catch (error) {
        if (!isTransientStoreError(error) || !isRunning()) throw error;
        const delay = Math.min(maxBackoffMs, 200 * 2 ** attempt);
        log.warn({ err: error, attempt, delay }, 'store unavailable; retrying the batch');
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  // The gathered write is retried like any batch while the store is away; any other failure
  // sends each partition back to apply its own batch alone, isolating what cannot be applied.
  const gatherer =
    projection.gather &&
    new BatchGatherer<Delivered<E>>(projection.gather, (items) => projectDurably(items, () => running));
  let running = true;

  /** A batch that cannot be applied is split, so only the messages that fail are dead-lettered. */
  async function projectOrIsolate(batch: Delivered<E>[], payload: EachBatchPayload, dead: DeadLetter[]) {
    try {
      await projectDurably(batch, () => payload.isRunning());
    } catch (error) {
      if (isTransientStoreError(error)) throw error;
      if (batch.length === 1) {
        const [only] = batch as [Delivered<E>];
        const message = payload.batch.messages.find((candidate) => candidate.offset === only.offset);
        if (message) dead.push({ message, reason: 'apply_failed', error: String(error) });
        return;
      }
      const half = Math.ceil(batch.length / 2);
      await projectOrIsolate(batch.slice(0, half), payload, dead);
      await projectOrIsolate(batch.slice(half), payload, dead);
    }
  }

  async function projectGatheredOrAlone(
    delivered: Delivered<E>[],
    payload: EachBatchPayload,
    dead: DeadLetter[],
  ): Promise<void> {
    if (gatherer) {
      try {
        await gatherer.add(delivered);
        return;
      } catch (error) {
        if (isTransientStoreError(error)) throw error;
        log.warn({ err: error }, "a gathered write failed; applying this partition's batch alone");
      }
    }
    await projectOrIsolate(delivered, payload, dead);
  }

  /** The batch's messages decoded; what cannot be decoded goes to `dead`. */
  async function decodeBatch(payload: EachBatchPayload, dead: DeadLetter[]): Promise<Delivered<E>[]> {
    const { batch } = payload;
    const delivered: Delivered<E>[] = [];
    for (const message of batch.messages) {
      const decoded = await decode(message, () => payload.isRunning());
      if ('dead' in decoded) dead.push(decoded.dead);
      else
        delivered.push({
          topic: batch.topic,
          partition: batch.partition,
          offset: message.offset,
          key: message.key?.toString() ?? null,
          event: decoded.event,
        });
    }
    return delivered;
  }

  async function eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    if (batch.messages.length === 0) return;
    const started = performance.now();
    const dead: DeadLetter[] = [];
    gatherer?.expect();
    let delivered: Delivered<E>[] = [];
    try {
      delivered = await decodeBatch(payload, dead);
    } finally {
      if (delivered.length === 0) gatherer?.withdraw();
    }
    if (delivered.length > 0) await projectGatheredOrAlone(delivered, payload, dead);
    if (dead.length > 0) await sendToDeadLetters(batch.topic, batch.partition, dead, payload);
    await deps.hooks?.afterProjectBeforeCommit?.({
      topic: batch.topic,
      partition: batch.partition,
      count: batch.messages.length,
    });
    const last = batch.lastOffset();
    payload.resolveOffset(last);
    // A batch whose partition moved to another member in a rebalance is not committed: that
    // member reads it again, and every projection is idempotent.
    if (!payload.isStale())
      await consumer.commitOffsets([
        { topic: batch.topic, partition: batch.partition, offset: String(BigInt(last) + 1n) },
      ]);
    messagesConsumed.inc({ group: groupId, topic: batch.topic }, batch.messages.length);
    projectionBatchSize.observe({ group: groupId }, batch.messages.length);
    projectionBatchDuration.observe({ group: groupId }, (performance.now() - started) / 1000);
    const lag = Number(BigInt(batch.highWatermark) - BigInt(last) - 1n);
    consumerLag.set(
      { group: groupId, topic: batch.topic, partition: String(batch.partition) },
      Math.max(0, lag),
    );
  }

  /**
   * The batch's offsets are committed only once its dead letters are on their topic, so nothing is
   * lost; a refused send (Kafka away, the topic missing) is retried with backoff like a store.
   */
  async function sendToDeadLetters(
    topic: string,
    partition: number,
    dead: DeadLetter[],
    payload: EachBatchPayload,
  ) {
    const messages = dead.map((entry) => ({
      key: entry.message.key,
      value: entry.message.value,
      headers: {
        'orrery.dlq.reason': entry.reason,
        'orrery.dlq.error': entry.error.slice(0, 4000),
        'orrery.dlq.topic': topic,
        'orrery.dlq.partition': String(partition),
        'orrery.dlq.offset': entry.message.offset,
      },
    }));
    for (let attempt = 0; ; attempt += 1) {
      try {
        await deps.producer.sendRaw(deadLetterTopic(groupId), messages);
        break;
      } catch (error) {
        if (!payload.isRunning()) throw error;
        const delay = Math.min(maxBackoffMs, 200 * 2 ** attempt);
        log.warn({ err: error, attempt, delay }, 'dead-letter topic unavailable; retrying');
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
    for (const entry of dead) {
      log.error(
        { reason: entry.reason, offset: entry.message.offset, partition, error: entry.error },
        'dead-lettered',
      );
      messagesDeadLettered.inc({ group: groupId, reason: entry.reason });
    }
  }

  await consumer.run({
    eachBatchAutoResolve: false,
    // Gathering needs the partitions' batches in hand at once; otherwise one at a time.
    partitionsConsumedConcurrently: gatherer ? config().kafka.partitions : 1,
    eachBatch,
  });
  log.info('consumer running');
  return {
    groupId,
    stop: () => {
      running = false;
      return consumer.disconnect();
    },
  };
}
