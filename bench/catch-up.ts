import { allProjections } from '../consumers/projections.ts';
import { type RunningConsumer, runConsumer } from '../consumers/runtime.ts';
import { caughtUpTo, readUsageOffsets } from '../jobs/usage-log.ts';
import { createClickHouse } from '../platform/clickhouse.ts';
import { topicEnd } from '../platform/kafka.ts';
import { logger } from '../platform/logger.ts';
import { createPgPool } from '../platform/postgres.ts';
import type { EventProducer } from '../producers/producer.ts';
import { topics } from '../schemas/events/topics.ts';

/**
 * Runs the usage projections, as the consumers process does, until both have read the usage
 * topic to its current end. A benchmark that runs the API alone publishes usage nothing
 * projects; left behind, it is a backlog the next `npm test` waits through.
 */
export async function projectUsageUntilCaughtUp(producer: EventProducer, timeoutMs = 300_000): Promise<void> {
  const end = await topicEnd(topics.usage.name);
  const pool = createPgPool();
  const clickhouse = createClickHouse();
  const running: RunningConsumer[] = [];
  try {
    for (const projection of Object.values(allProjections({ pool, clickhouse })))
      if (projection.stream === 'usage')
        running.push(await runConsumer(projection, { registry: producer.registry, producer, logger }));
    const deadline = Date.now() + timeoutMs;
    while (!caughtUpTo(await readUsageOffsets(pool), end)) {
      if (Date.now() > deadline)
        throw new Error(`the usage projections did not catch up within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await Promise.all(running.map((consumer) => consumer.stop()));
    await Promise.all([pool.end(), clickhouse.close()]);
  }
}
