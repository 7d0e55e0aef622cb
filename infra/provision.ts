import { consumerGroupIds } from '../consumers/groups.ts';
import { createClickHouse } from '../platform/clickhouse.ts';
import type { Config } from '../platform/config.ts';
import { type Admin, withAdmin } from '../platform/kafka.ts';
import { waitFor } from '../platform/poll.ts';
import { createRegistry, registerValueSchema } from '../platform/registry.ts';
import { deadLetterRetentionMs, deadLetterTopic, type StreamName, topics } from '../schemas/events/topics.ts';
import { migrateClickHouse, migratePostgres } from './migrate.ts';
import { createDatabaseStatement } from './stack/clickhouse.ts';

/**
 * Everything the platform needs inside a running stack, idempotent: migrations, topics with their
 * partitions and retention, dead-letter topics, and the value schemas registered with BACKWARD
 * compatibility. Runs on every `npm start` and before the integration tests.
 */
export async function provision(config: Config, log: (line: string) => void): Promise<void> {
  await migratePostgres(config, log);
  // The given stack's, not the process's configured one (a test may provision another stack).
  const clickhouse = createClickHouse({ url: config.clickhouse.url, database: config.clickhouse.database });
  try {
    await migrateClickHouse(clickhouse, log);
  } finally {
    await clickhouse.close();
  }
  await createTopics(config, log);
  const registry = createRegistry(config.registry.url);
  for (const stream of Object.keys(topics) as StreamName[]) await registerValueSchema(registry, stream);
}

/**
 * A stack whose ClickHouse has no database of ours yet (one in containers; the local stack makes
 * its own when it starts its server): the database first, then everything `provision` does.
 */
export async function provisionNewStack(config: Config, log: (line: string) => void): Promise<void> {
  const created = await fetch(config.clickhouse.url, {
    method: 'POST',
    body: createDatabaseStatement(config.clickhouse.database),
  });
  if (!created.ok) throw new Error(`clickhouse: could not create the database: ${await created.text()}`);
  await provision(config, log);
}

async function createTopics(config: Config, log: (line: string) => void): Promise<void> {
  const { replicationFactor } = config.kafka;
  await withAdmin(
    'orrery-provision',
    async (admin) => {
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
        topics: wanted.map(({ topic, retentionMs }) => ({
          topic,
          numPartitions: config.kafka.partitions,
          replicationFactor,
          configEntries: [
            { name: 'retention.ms', value: String(retentionMs) },
            { name: 'cleanup.policy', value: 'delete' },
            // acks=all then means at least this many copies: one broker can fail without a loss.
            { name: 'min.insync.replicas', value: String(minInsyncReplicas(replicationFactor)) },
          ],
        })),
      });
      await waitForLeaders(
        admin,
        wanted.map((topic) => topic.topic),
      );
      log(
        `created topics: ${wanted.map((topic) => topic.topic).join(', ')} (replication factor ${replicationFactor})`,
      );
    },
    config.kafka,
  );
}

/** Two copies must acknowledge where there are three or more; one where there are fewer. */
export function minInsyncReplicas(replicationFactor: number): number {
  return Math.min(2, Math.max(1, replicationFactor - 1));
}

/** A new topic takes produce requests once every partition has a leader. */
export async function waitForLeaders(admin: Admin, names: string[], timeoutMs = 30_000): Promise<void> {
  await waitFor(
    `a leader for every partition of ${names.join(', ')}`,
    async () => {
      const metadata = await admin.fetchTopicMetadata({ topics: names }).catch(() => undefined);
      return metadata?.every((topic) => topic.partitions.every((partition) => partition.leader >= 0));
    },
    { timeoutMs, intervalMs: 200 },
  );
}
