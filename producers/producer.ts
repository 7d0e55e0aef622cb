import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { CompressionTypes, type Message, Partitioners, type Producer } from 'kafkajs';
import { createKafka } from '../platform/kafka.ts';
import { messagesProduced } from '../platform/metrics.ts';
import { createRegistry, registerValueSchema, type StreamCodec, streamCodec } from '../platform/registry.ts';
import { type StreamName, topics } from '../platform/topics.ts';

/**
 * The process's one Kafka producer: idempotent, acks=all, gzip-compressed batches. Every typed
 * publisher (producers/*.ts) sends through `send`, which resolves only once Kafka acknowledged:
 * that acknowledgement is the platform's durability point.
 */
export interface EventProducer {
  send<T extends object>(stream: StreamName, records: { key: string; value: T }[]): Promise<void>;
  /** Sends already-encoded messages as they are: the dead-letter path keeps the original bytes. */
  sendRaw(topic: string, messages: Message[]): Promise<void>;
  disconnect(): Promise<void>;
  readonly registry: SchemaRegistry;
}

export async function createEventProducer(clientId: string): Promise<EventProducer> {
  const registry = createRegistry();
  const producer: Producer = createKafka(clientId).producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  const codecs = new Map<StreamName, StreamCodec<object>>();

  async function codecFor(stream: StreamName): Promise<StreamCodec<object>> {
    let codec = codecs.get(stream);
    if (!codec) {
      codec = streamCodec<object>(stream, await registerValueSchema(registry, stream));
      codecs.set(stream, codec);
    }
    return codec;
  }

  return {
    registry,
    async send(stream, records) {
      if (records.length === 0) return;
      const codec = await codecFor(stream);
      const messages: Message[] = records.map((record) => ({
        key: record.key,
        value: codec.encode(record.value),
      }));
      await producer.send({
        topic: topics[stream].name,
        acks: -1,
        compression: CompressionTypes.GZIP,
        messages,
      });
      messagesProduced.inc({ topic: topics[stream].name }, messages.length);
    },
    async sendRaw(topic, messages) {
      if (messages.length === 0) return;
      await producer.send({ topic, acks: -1, compression: CompressionTypes.GZIP, messages });
      messagesProduced.inc({ topic }, messages.length);
    },
    disconnect: () => producer.disconnect(),
  };
}
