import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { config } from '../platform/config.ts';
import { messagesProduced } from '../platform/metrics.ts';
import { createRegistry, registerValueSchema, type StreamCodec, streamCodec } from '../platform/registry.ts';
import { type StreamName, topics } from '../platform/topics.ts';
import { IdempotentProducer, type OutgoingMessage } from './wire/idempotent-producer.ts';

export type { OutgoingMessage };

/**
 * The process's one Kafka producer: idempotent, acks=all, gzip-compressed batches. Every typed
 * publisher (producers/*.ts) sends through `send`, which resolves only once Kafka acknowledged:
 * that acknowledgement is the platform's durability point.
 */
export interface EventProducer {
  send<T extends object>(stream: StreamName, records: { key: string; value: T }[]): Promise<void>;
  /** Sends already-encoded messages as they are: the dead-letter path keeps the original bytes. */
  sendRaw(topic: string, messages: OutgoingMessage[]): Promise<void>;
  disconnect(): Promise<void>;
  readonly registry: SchemaRegistry;
}

/**
 * Gzip pays for itself on large batches (span events) and only costs CPU on small ones (a few
 * usage or org events), so small batches go as they are. Any Kafka client reads both.
 */
const compressAboveBytes = 16 * 1024;

export class PublishFailed extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'PublishFailed';
  }
}

export interface ProducerOptions {
  brokers?: string[];
  /** A send not acknowledged within this time fails, so callers answer 503 rather than hang. */
  publishTimeoutMs?: number;
}

/**
 * Connects lazily and again after a failure, so a process starts, and answers 503, while Kafka is
 * unreachable, and recovers by itself once it is back.
 */
export async function createEventProducer(
  clientId: string,
  options: ProducerOptions = {},
): Promise<EventProducer> {
  const registry = createRegistry();
  const timeoutMs = options.publishTimeoutMs ?? config().kafka.publishTimeoutMs;
  const producer = new IdempotentProducer({
    clientId,
    brokers: options.brokers ?? config().kafka.brokers,
    timeoutMs,
  });
  const codecs = new Map<StreamName, StreamCodec<object>>();

  async function codecFor(stream: StreamName): Promise<StreamCodec<object>> {
    let codec = codecs.get(stream);
    if (!codec) {
      codec = streamCodec<object>(stream, await registerValueSchema(registry, stream));
      codecs.set(stream, codec);
    }
    return codec;
  }

  // Group commit: the producer sends one request at a time and has no linger, so sends that
  // arrive while one is in flight wait and then go together in one produce request. Each caller
  // still resolves only once its own messages are acknowledged.
  const waiting: { topic: string; messages: OutgoingMessage[]; settle: (error?: unknown) => void }[] = [];
  let flushing = false;

  async function flush(): Promise<void> {
    flushing = true;
    while (waiting.length > 0) {
      const batch = waiting.splice(0);
      const byTopic = new Map<string, OutgoingMessage[]>();
      for (const entry of batch) {
        const messages = byTopic.get(entry.topic) ?? [];
        messages.push(...entry.messages);
        byTopic.set(entry.topic, messages);
      }
      try {
        await producer.send(
          [...byTopic].map(([topic, messages]) => ({ topic, messages })),
          compressAboveBytes,
        );
        for (const [topic, messages] of byTopic) messagesProduced.inc({ topic }, messages.length);
        for (const entry of batch) entry.settle();
      } catch (error) {
        for (const entry of batch) entry.settle(error);
      }
    }
    flushing = false;
  }

  async function deliver(topic: string, messages: OutgoingMessage[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const acknowledged = new Promise<void>((resolve, reject) => {
      waiting.push({ topic, messages, settle: (error) => (error === undefined ? resolve() : reject(error)) });
    });
    if (!flushing) void flush();
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new PublishFailed(`Kafka did not acknowledge within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([acknowledged, timeout]);
    } catch (error) {
      throw error instanceof PublishFailed
        ? error
        : new PublishFailed(`publishing to ${topic} failed`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    registry,
    async send(stream, records) {
      if (records.length === 0) return;
      const codec = await codecFor(stream);
      const messages = records.map((record) => ({ key: record.key, value: codec.encode(record.value) }));
      await deliver(topics[stream].name, messages);
    },
    async sendRaw(topic, messages) {
      if (messages.length > 0) await deliver(topic, messages);
    },
    disconnect: async () => producer.close(),
  };
}
