import { consumerGroupIds } from '../consumers/groups.ts';
import { createClickHouse } from '../platform/clickhouse.ts';
import type { Config } from '../platform/config.ts';
import { createKafka } from '../platform/kafka.ts';
import { createRegistry, registerValueSchema } from '../platform/registry.ts';
import { deadLetterRetentionMs, deadLetterTopic, type StreamName, topics } from '../platform/topics.ts';
import { migrateClickHouse, migratePostgres } from './migrate.ts';

/**
 * Everything the platform needs inside a running stack, idempotent: migrations, topics with their
 * partitions and retention, dead-letter topics, and the value schemas registered with BACKWARD
 * compatibility. Runs on every `npm start` and before the integration tests.
 */
export async function provision(config: Config, log: (line: string) => void): Promise<void> {
  await migratePostgres(config, log);
  const clickhouse = createClickHouse();
  try {
    await migrateClickHouse(clickhouse, log);
  } finally {
    await clickhouse.close();
  }
  await createTopics(config, log);
  const registry = createRegistry();
  for (const stream of Object.keys(topics) as StreamName[]) await registerValueSchema(registry, stream);
}

async function createTopics(config: Config, log: (line: string) => void): Promise<void> {
  const admin = createKafka('orrery-provision').admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const wanted = [
      ...Object.values(topics).map((topic) => ({ topic: topic.name, retentionMs: topic.retentionMs })),
      ...consumerGroupIds.map((groupId) => ({
        topic: deadLetterTopic(groupId),
        retentionMs: deadLetterRetentionMs,
      })),
    ].filter((topic) => !existing.has(topic.topic));
    if (wanted.length === 0) return;
    await admin.createTopics({
      waitForLeaders: true,
      topics: wanted.map(({ topic, retentionMs }) => ({
        topic,
        numPartitions: config.kafka.partitions,
        replicationFactor: 1,
        configEntries: [
          { name: 'retention.ms', value: String(retentionMs) },
          { name: 'cleanup.policy', value: 'delete' },
        ],
      })),
    });
    log(`created topics: ${wanted.map((topic) => topic.topic).join(', ')}`);
  } finally {
    await admin.disconnect();
  }
}
