import { setTimeout as sleep } from 'node:timers/promises';
import { BrokerConnection, ConnectionError } from './connection.ts';
import { partitionForKey } from './partitioner.ts';
import { encodeRecordBatch, type OutgoingRecord } from './record-batch.ts';
import {
  apiKeys,
  apiVersions,
  type ClusterMetadata,
  initProducerIdRequest,
  metadataRequest,
  type PartitionBatch,
  produceRequest,
  readInitProducerId,
  readMetadata,
  readProduce,
} from './requests.ts';

// An idempotent producer (acks=all, a producer id and per-partition sequence numbers), written for
// the platform's one producer because kafkajs spent about 0.24 ms of CPU and many short-lived
// buffers on each send of one message, most of the inference endpoint's p99 (bench/inference).
// Callers send one batch at a time (producers/producer.ts groups concurrent sends); a retried
// batch keeps its sequence numbers, so the broker drops what it already wrote.

export interface OutgoingMessage {
  key: Buffer | string | null;
  value: Buffer | null;
  headers?: Record<string, Buffer | string>;
}

export class ProduceFailed extends Error {
  constructor(
    message: string,
    readonly errorCode?: number,
  ) {
    super(message);
    this.name = 'ProduceFailed';
  }
}

// Kafka's error codes (kafka.apache.org/protocol, "Error Codes") this producer acts on.
const retriable = new Set([
  3, // UNKNOWN_TOPIC_OR_PARTITION (a new topic's metadata not yet everywhere)
  5, // LEADER_NOT_AVAILABLE
  6, // NOT_LEADER_OR_FOLLOWER
  7, // REQUEST_TIMED_OUT
  13, // NETWORK_EXCEPTION
  14, // COORDINATOR_LOAD_IN_PROGRESS
  15, // COORDINATOR_NOT_AVAILABLE
  19, // NOT_ENOUGH_REPLICAS
  20, // NOT_ENOUGH_REPLICAS_AFTER_APPEND
  56, // KAFKA_STORAGE_ERROR
]);
const duplicateSequence = 46;
const producerIdLost = new Set([
  45 /* OUT_OF_ORDER_SEQUENCE_NUMBER */, 47 /* INVALID_PRODUCER_EPOCH */, 59 /* UNKNOWN_PRODUCER_ID */,
]);

export interface IdempotentProducerOptions {
  clientId: string;
  brokers: readonly string[];
  /** How long one send may take, retries included. */
  timeoutMs: number;
}

interface PendingBatch {
  topic: string;
  partition: number;
  records: OutgoingRecord[];
  gzip: boolean;
  /** Encoded with the producer id and sequence it was first sent with; reused on retries. */
  encoded?: { batch: Buffer; producerId: bigint };
}

export class IdempotentProducer {
  private readonly connections = new Map<string, BrokerConnection>();
  private metadata: ClusterMetadata | undefined;
  private metadataAt = 0;
  private producer: { id: bigint; epoch: number } | undefined;
  private readonly sequences = new Map<string, number>();
  private readonly roundRobin = new Map<string, number>();

  constructor(private readonly options: IdempotentProducerOptions) {}

  /** Resolves once every message is acknowledged by all in-sync replicas. */
  async send(
    topicMessages: readonly { topic: string; messages: readonly OutgoingMessage[] }[],
    compressAboveBytes: number,
  ): Promise<void> {
    const deadline = Date.now() + this.options.timeoutMs;
    const topics = topicMessages.map((entry) => entry.topic);
    let metadata = await this.metadataFor(topics, deadline);
    let pending = this.partitioned(topicMessages, metadata, compressAboveBytes);
    for (let attempt = 0; ; attempt += 1) {
      const producer = await this.producerId(deadline);
      let failed: PendingBatch[];
      let lastError: Error | undefined;
      try {
        failed = await this.produceOnce(pending, producer, metadata);
      } catch (error) {
        if (!(error instanceof ConnectionError)) throw error;
        failed = pending;
        lastError = error;
      }
      if (failed.length === 0) return;
      if (Date.now() + backoffMs(attempt) >= deadline)
        throw (
          lastError ?? new ProduceFailed(`Kafka did not accept the batch within ${this.options.timeoutMs} ms`)
        );
      await sleep(backoffMs(attempt));
      this.metadata = undefined;
      metadata = await this.metadataFor(topics, deadline);
      pending = failed;
    }
  }

  close(): void {
    for (const connection of this.connections.values()) connection.close();
    this.connections.clear();
  }

  /** Sends each leader its partitions' batches; returns the batches to send again. */
  private async produceOnce(
    pending: PendingBatch[],
    producer: { id: bigint; epoch: number },
    metadata: ClusterMetadata,
  ): Promise<PendingBatch[]> {
    const byLeader = new Map<number, PendingBatch[]>();
    for (const entry of pending) {
      const leader = metadata.topics.get(entry.topic)?.leaders[entry.partition] ?? -1;
      const list = byLeader.get(leader) ?? [];
      list.push(entry);
      byLeader.set(leader, list);
    }
    const failed: PendingBatch[] = [...(byLeader.get(-1) ?? [])];
    byLeader.delete(-1);
    await Promise.all(
      [...byLeader].map(async ([leader, entries]) => {
        const batches: PartitionBatch[] = [];
        for (const entry of entries) batches.push(await this.encoded(entry, producer));
        const connection = this.connectionTo(metadata, leader);
        const reader = await connection.request(
          apiKeys.produce,
          apiVersions.produce,
          produceRequest(batches, this.options.timeoutMs),
        );
        for (const outcome of readProduce(reader)) {
          const entry = entries.find((e) => e.topic === outcome.topic && e.partition === outcome.partition);
          if (!entry || outcome.errorCode === 0 || outcome.errorCode === duplicateSequence) continue;
          if (producerIdLost.has(outcome.errorCode)) {
            // The broker no longer knows our sequence: start again under a new producer id.
            this.producer = undefined;
            entry.encoded = undefined;
            failed.push(entry);
          } else if (retriable.has(outcome.errorCode)) failed.push(entry);
          else
            throw new ProduceFailed(
              `Kafka refused ${outcome.topic}/${outcome.partition} (error ${outcome.errorCode})`,
              outcome.errorCode,
            );
        }
      }),
    );
    return failed;
  }

  private async encoded(
    entry: PendingBatch,
    producer: { id: bigint; epoch: number },
  ): Promise<PartitionBatch> {
    if (entry.encoded?.producerId !== producer.id) {
      const key = `${entry.topic}:${entry.partition}`;
      const baseSequence = this.sequences.get(key) ?? 0;
      this.sequences.set(key, (baseSequence + entry.records.length) % 2 ** 31);
      const batch = await encodeRecordBatch(
        entry.records,
        { producerId: producer.id, producerEpoch: producer.epoch, baseSequence },
        { gzip: entry.gzip },
      );
      entry.encoded = { batch, producerId: producer.id };
    }
    return { topic: entry.topic, partition: entry.partition, batch: entry.encoded.batch };
  }

  private partitioned(
    topicMessages: readonly { topic: string; messages: readonly OutgoingMessage[] }[],
    metadata: ClusterMetadata,
    compressAboveBytes: number,
  ): PendingBatch[] {
    const batches = new Map<string, PendingBatch>();
    const now = Date.now();
    for (const { topic, messages } of topicMessages) {
      const partitionCount = metadata.topics.get(topic)?.leaders.length ?? 0;
      if (partitionCount === 0) throw new ProduceFailed(`the topic ${topic} does not exist`, 3);
      for (const message of messages) {
        const key = message.key === null ? null : Buffer.from(message.key);
        const partition =
          key === null ? this.nextPartition(topic, partitionCount) : partitionForKey(key, partitionCount);
        const id = `${topic}:${partition}`;
        const batch = batches.get(id) ?? { topic, partition, records: [], gzip: false };
        batch.records.push({
          key,
          value: message.value,
          headers: Object.entries(message.headers ?? {}).map(
            ([name, value]) => [name, Buffer.from(value)] as const,
          ),
          timestampMs: now,
        });
        batches.set(id, batch);
      }
    }
    for (const batch of batches.values()) {
      let bytes = 0;
      for (const record of batch.records) bytes += record.value?.length ?? 0;
      batch.gzip = bytes >= compressAboveBytes;
    }
    return [...batches.values()];
  }

  private nextPartition(topic: string, partitionCount: number): number {
    const next = (this.roundRobin.get(topic) ?? Math.floor(Math.random() * partitionCount)) + 1;
    this.roundRobin.set(topic, next);
    return next % partitionCount;
  }

  private async metadataFor(topics: readonly string[], deadline: number): Promise<ClusterMetadata> {
    const known = this.metadata;
    const fresh = Date.now() - this.metadataAt < metadataMaxAgeMs;
    if (known && fresh && topics.every((topic) => (known.topics.get(topic)?.leaders.length ?? 0) > 0))
      return known;
    const wanted = new Set([...topics, ...(known ? known.topics.keys() : [])]);
    for (let attempt = 0; ; attempt += 1) {
      try {
        const reader = await this.anyBroker(known, attempt).request(
          apiKeys.metadata,
          apiVersions.metadata,
          metadataRequest([...wanted]),
        );
        const metadata = readMetadata(reader);
        this.metadata = metadata;
        this.metadataAt = Date.now();
        // A topic created a moment ago may not be known to every broker yet: ask again shortly.
        const complete = topics.every((topic) => (metadata.topics.get(topic)?.leaders.length ?? 0) > 0);
        if (complete || Date.now() + backoffMs(attempt) >= deadline) return metadata;
        await sleep(backoffMs(attempt));
      } catch (error) {
        if (!(error instanceof ConnectionError) || Date.now() + backoffMs(attempt) >= deadline) throw error;
        await sleep(backoffMs(attempt));
      }
    }
  }

  private async producerId(deadline: number): Promise<{ id: bigint; epoch: number }> {
    for (let attempt = 0; !this.producer; attempt += 1) {
      let reply: ReturnType<typeof readInitProducerId>;
      try {
        reply = readInitProducerId(
          await this.anyBroker(this.metadata, attempt).request(
            apiKeys.initProducerId,
            apiVersions.initProducerId,
            initProducerIdRequest(),
          ),
        );
      } catch (error) {
        if (!(error instanceof ConnectionError) || Date.now() + backoffMs(attempt) >= deadline) throw error;
        await sleep(backoffMs(attempt));
        continue;
      }
      if (reply.errorCode === 0) {
        this.producer = { id: reply.producerId, epoch: reply.producerEpoch };
        this.sequences.clear();
      } else if (!retriable.has(reply.errorCode) || Date.now() + backoffMs(attempt) >= deadline)
        throw new ProduceFailed(`Kafka gave no producer id (error ${reply.errorCode})`, reply.errorCode);
      else await sleep(backoffMs(attempt));
    }
    return this.producer;
  }

  /** A connection to a known broker, else to a bootstrap address, the next one on each attempt. */
  private anyBroker(metadata: ClusterMetadata | undefined, attempt: number): BrokerConnection {
    const [first] = metadata?.brokers ?? [];
    if (metadata && first) return this.connectionTo(metadata, first[0]);
    const { brokers } = this.options;
    return this.connection(brokers[attempt % brokers.length]!);
  }

  private connectionTo(metadata: ClusterMetadata, nodeId: number): BrokerConnection {
    const broker = metadata.brokers.get(nodeId);
    if (!broker) throw new ConnectionError(`no address for broker ${nodeId}`);
    return this.connection(`${broker.host}:${broker.port}`);
  }

  private connection(address: string): BrokerConnection {
    let connection = this.connections.get(address);
    if (!connection) {
      const at = address.lastIndexOf(':');
      connection = new BrokerConnection(
        address.slice(0, at),
        Number(address.slice(at + 1)),
        this.options.clientId,
        this.options.timeoutMs,
      );
      this.connections.set(address, connection);
    }
    return connection;
  }
}

/** Read again at least this often, so added partitions and moved leaders are seen (as kafkajs). */
const metadataMaxAgeMs = 5 * 60_000;

const backoffMs = (attempt: number) => Math.min(1_000, 50 * 2 ** attempt);
