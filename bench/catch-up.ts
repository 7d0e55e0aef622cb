import { allProjections } from '../consumers/projections.ts';
import { type RunningConsumer, runConsumer } from '../consumers/runtime.ts';
import { createClickHouse } from '../platform/clickhouse.ts';
import { createKafka, topicEnd } from '../platform/kafka.ts';
import { logger } from '../platform/logger.ts';
import { createPgPool } from '../platform/postgres.ts';
import { type StreamName, topics } from '../platform/topics.ts';
import type { EventProducer } from '../producers/producer.ts';

const maxOf = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * Runs the platform's projections of a stream, as the consumers process does, until their groups
 * have committed the stream's current end. A benchmark that runs the API alone publishes events
 * nothing projects; left behind, they are a backlog the next `npm test` waits through.
 */
export async function projectUntilCaughtUp(
  stream: StreamName,
  producer: EventProducer,
  timeoutMs = 300_000,
): Promise<void> {
  const topic = topics[stream].name;
  const end = await topicEnd(topic);
  const pool = createPgPool();
  const clickhouse = createClickHouse();
  const admin = createKafka('orrery-bench-catch-up').admin();
  await admin.connect();
  const running: RunningConsumer[] = [];
  try {
    for (const projection of Object.values(allProjections({ pool, clickhouse })))
      if (projection.stream === stream)
        running.push(await runConsumer(projection, { registry: producer.registry, producer, logger }));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const committed = await Promise.all(
        running.map((consumer) => admin.fetchOffsets({ groupId: consumer.groupId, topics: [topic] })),
      );
      const caughtUp = committed.every(([offsets]) =>
        (offsets?.partitions ?? []).every(
          // A group that never committed a partition has offset -1: caught up only if it is empty.
          (partition) => maxOf(BigInt(partition.offset), 0n) >= (end.get(partition.partition) ?? 0n),
        ),
      );
      if (caughtUp) return;
      if (Date.now() > deadline)
        throw new Error(`the ${stream} projections did not catch up within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await Promise.all(running.map((consumer) => consumer.stop()));
    await admin.disconnect();
    await Promise.all([pool.end(), clickhouse.close()]);
  }
}
