import { randomUUID } from 'node:crypto';
import confluent from '@confluentinc/kafka-javascript';
import { config } from '../../platform/config.ts';
import { createKafka, librdkafkaConfig, topicEnd, withAdmin } from '../../platform/kafka.ts';
import type { KafkaSettings } from '../../platform/kafka-settings.ts';

// Kafka as the tests see it, through the platform's own client: reading a topic back, and giving
// a test's consumer group a starting point.

export interface ReadMessage {
  partition: number;
  offset: bigint;
  key: string | null;
  value: Buffer;
  headers: Record<string, string>;
}

/**
 * Reads `topic` from its beginning (in a group of its own, never committed) until `enough` says
 * so; fails after `timeoutMs` with how much it read.
 */
export async function readTopic(
  topic: string,
  enough: (read: readonly ReadMessage[]) => boolean,
  options: { timeoutMs?: number; settings?: KafkaSettings } = {},
): Promise<ReadMessage[]> {
  const consumer = createKafka('orrery-test-reader', options.settings).consumer({
    kafkaJS: { groupId: `orrery-test-reader-${randomUUID()}`, fromBeginning: true, autoCommit: false },
  });
  await consumer.connect();
  const read: ReadMessage[] = [];
  try {
    await consumer.subscribe({ topics: [topic] });
    await new Promise<void>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? 20_000;
      const timer = setTimeout(
        () => reject(new Error(`read ${read.length} messages of ${topic} in ${timeoutMs} ms, not enough`)),
        timeoutMs,
      );
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(message.headers ?? {})) headers[name] = String(value);
          read.push({
            partition,
            offset: BigInt(message.offset),
            key: message.key?.toString() ?? null,
            value: message.value ?? Buffer.alloc(0),
            headers,
          });
          if (enough(read)) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
    return read;
  } finally {
    await consumer.disconnect();
  }
}

/**
 * A new consumer group starts at the topic's current end rather than its beginning (the shared
 * stack's topics hold every earlier run's events): its offsets are committed before it first
 * joins, as a standalone consumer may. A group that has offsets already keeps them.
 */
export async function startGroupAtEnd(groupId: string, topic: string): Promise<void> {
  const [committed] = await withAdmin('orrery-test-admin', (admin) =>
    admin.fetchOffsets({ groupId, topics: [topic] }),
  );
  if (committed?.partitions.some((partition) => Number(partition.offset) >= 0)) return;
  const end = await topicEnd(topic);
  const consumer = new confluent.KafkaConsumer({
    ...librdkafkaConfig(config().kafka, 'orrery-test-group-start'),
    'group.id': groupId,
    'enable.auto.commit': false,
  });
  await new Promise<void>((resolve, reject) =>
    consumer.connect({}, (error) => (error ? reject(error) : resolve())),
  );
  try {
    consumer.commitSync(
      [...end].map(([partition, offset]) => ({ topic, partition, offset: Number(offset) })),
    );
  } finally {
    await new Promise<void>((resolve) => consumer.disconnect(() => resolve()));
  }
}
