import type { Admin } from '../platform/kafka.ts';

/**
 * Messages of `topic` that `groupId` has not committed yet, over all its partitions: the topic's
 * end minus the group's committed offsets, as the Kafka tools count a consumer group's lag.
 */
export async function consumerLag(admin: Admin, groupId: string, topic: string): Promise<number> {
  const [ends, [committed]] = await Promise.all([
    admin.fetchTopicOffsets(topic),
    admin.fetchOffsets({ groupId, topics: [topic] }),
  ]);
  const consumed = new Map(
    (committed?.partitions ?? []).map((partition) => [
      partition.partition,
      Math.max(Number(partition.offset), 0),
    ]),
  );
  return ends.reduce((lag, end) => lag + Number(end.high) - (consumed.get(end.partition) ?? 0), 0);
}
