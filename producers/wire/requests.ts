import { type Reader, Writer } from './codec.ts';

// The three requests a producer needs (kafka.apache.org/protocol), at the versions kafkajs used
// against our brokers: Metadata v6, InitProducerId v1, Produce v7. None is a flexible version.

export const apiKeys = { produce: 0, metadata: 3, initProducerId: 22 } as const;
export const apiVersions = { produce: 7, metadata: 6, initProducerId: 1 } as const;

export interface ClusterMetadata {
  brokers: Map<number, { host: string; port: number }>;
  topics: Map<string, { errorCode: number; leaders: number[] }>;
}

export function metadataRequest(topics: readonly string[]): Buffer {
  const writer = new Writer();
  writer.int32(topics.length);
  for (const topic of topics) writer.string(topic);
  writer.int8(0); // allow_auto_topic_creation: topics are provisioned
  return writer.bytesWritten();
}

export function readMetadata(reader: Reader): ClusterMetadata {
  reader.int32(); // throttle_time_ms
  const brokers = new Map<number, { host: string; port: number }>();
  for (const broker of reader.array((r) => ({
    nodeId: r.int32(),
    host: r.string(),
    port: r.int32(),
    rack: r.nullableString(),
  })))
    brokers.set(broker.nodeId, { host: broker.host, port: broker.port });
  reader.nullableString(); // cluster_id
  reader.int32(); // controller_id
  const topics = new Map<string, { errorCode: number; leaders: number[] }>();
  for (const topic of reader.array((r) => {
    const errorCode = r.int16();
    const name = r.string();
    r.boolean(); // is_internal
    const partitions = r.array((p) => {
      p.int16(); // the partition's error code: a missing leader shows as -1 below
      const index = p.int32();
      const leader = p.int32();
      p.array((n) => n.int32()); // replica_nodes
      p.array((n) => n.int32()); // isr_nodes
      p.array((n) => n.int32()); // offline_replicas
      return { index, leader };
    });
    const leaders: number[] = [];
    for (const partition of partitions) leaders[partition.index] = partition.leader;
    return { name, errorCode, leaders };
  }))
    topics.set(topic.name, { errorCode: topic.errorCode, leaders: topic.leaders });
  return { brokers, topics };
}

export function initProducerIdRequest(): Buffer {
  return new Writer(16).nullableString(null).int32(60_000).bytesWritten();
}

export function readInitProducerId(reader: Reader): {
  errorCode: number;
  producerId: bigint;
  producerEpoch: number;
} {
  reader.int32(); // throttle_time_ms
  return { errorCode: reader.int16(), producerId: reader.int64(), producerEpoch: reader.int16() };
}

export interface PartitionBatch {
  topic: string;
  partition: number;
  batch: Buffer;
}

export function produceRequest(batches: readonly PartitionBatch[], timeoutMs: number): Buffer {
  const byTopic = new Map<string, PartitionBatch[]>();
  for (const entry of batches) {
    const list = byTopic.get(entry.topic) ?? [];
    list.push(entry);
    byTopic.set(entry.topic, list);
  }
  let size = 64;
  for (const entry of batches) size += entry.batch.length + entry.topic.length + 16;
  const writer = new Writer(size);
  writer.nullableString(null); // transactional_id
  writer.int16(-1); // acks: all in-sync replicas
  writer.int32(timeoutMs);
  writer.int32(byTopic.size);
  for (const [topic, entries] of byTopic) {
    writer.string(topic).int32(entries.length);
    for (const entry of entries) writer.int32(entry.partition).bytes(entry.batch);
  }
  return writer.bytesWritten();
}

export interface PartitionOutcome {
  topic: string;
  partition: number;
  errorCode: number;
}

export function readProduce(reader: Reader): PartitionOutcome[] {
  const outcomes: PartitionOutcome[] = [];
  reader.array((r) => {
    const topic = r.string();
    r.array((p) => {
      const partition = p.int32();
      const errorCode = p.int16();
      p.int64(); // base_offset
      p.int64(); // log_append_time_ms
      p.int64(); // log_start_offset
      outcomes.push({ topic, partition, errorCode });
    });
  });
  reader.int32(); // throttle_time_ms
  return outcomes;
}
