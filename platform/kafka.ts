import confluent, { type KafkaJS } from '@confluentinc/kafka-javascript';
import murmurhash from 'murmurhash';
import { config } from './config.ts';
import type { KafkaSettings } from './kafka-settings.ts';
import { logger } from './logger.ts';

// The platform's one Kafka client library, @confluentinc/kafka-javascript (librdkafka, through its
// KafkaJS-shaped API): the producer, the consumer groups and the admin calls all connect here,
// with the same brokers, TLS and SASL (platform/kafka-settings.ts).

export type Kafka = KafkaJS.Kafka;
export type Admin = KafkaJS.Admin;
export type Consumer = KafkaJS.Consumer;
export type Producer = KafkaJS.Producer;
export type EachBatchPayload = KafkaJS.EachBatchPayload;
export type KafkaMessage = KafkaJS.KafkaMessage;
export const { CompressionTypes } = confluent.KafkaJS;

// The seed of Kafka's murmur2 (org.apache.kafka.common.utils.Utils.murmur2).
const murmur2Seed = 0x9747b28c;

/**
 * The partition Kafka gives a keyed record: murmur2 of the key's UTF-8 bytes, made positive, modulo
 * the partition count, as the Java client's default partitioner and librdkafka's murmur2_random
 * (which the KafkaJS-shaped producer is set to) place it.
 */
export function keyPartition(key: string, partitionCount: number): number {
  return (murmurhash.v2(key, murmur2Seed) & 0x7fffffff) % partitionCount;
}

/** librdkafka's logs through our pino logger, so every process logs JSON. */
const kafkaLogger: KafkaJS.Logger = {
  error: (message, extra) => logger.error({ kafka: extra }, `kafka: ${message}`),
  warn: (message, extra) => logger.warn({ kafka: extra }, `kafka: ${message}`),
  info: (message, extra) => logger.info({ kafka: extra }, `kafka: ${message}`),
  debug: (message, extra) => logger.debug({ kafka: extra }, `kafka: ${message}`),
  namespace: () => kafkaLogger,
  setLogLevel: () => undefined,
};

/** The longest a consumer's fetch may wait on the broker for records (groupConsumer's maxWaitMs). */
export const longestFetchWaitMs = 1_000;

/** The connection part of librdkafka's configuration: brokers, TLS, SASL, timeouts. */
export function librdkafkaConfig(settings: KafkaSettings, clientId: string) {
  const { tls, sasl } = settings;
  const protocol = tls ? (sasl ? 'sasl_ssl' : 'ssl') : sasl ? 'sasl_plaintext' : 'plaintext';
  return {
    'bootstrap.servers': settings.brokers.join(','),
    'client.id': clientId,
    'security.protocol': protocol,
    ...(tls?.ca ? { 'ssl.ca.pem': tls.ca } : {}),
    ...(tls?.certificate && tls.key
      ? { 'ssl.certificate.pem': tls.certificate, 'ssl.key.pem': tls.key }
      : {}),
    ...(tls?.keyPassword ? { 'ssl.key.password': tls.keyPassword } : {}),
    ...(sasl
      ? { 'sasl.mechanisms': sasl.mechanism, 'sasl.username': sasl.username, 'sasl.password': sasl.password }
      : {}),
    // A broker that does not answer is given up on after one request's time, not librdkafka's
    // minute, so a dead broker's partitions move on to their new leader quickly; but never before
    // a consumer's fetch could have answered (it waits up to its max wait on the broker).
    'socket.timeout.ms': Math.max(settings.timeouts.requestMs, longestFetchWaitMs + 1_000),
    // librdkafka's floor for a connection's setup is a second.
    'socket.connection.setup.timeout.ms': Math.max(1000, settings.timeouts.requestMs),
    'socket.nagle.disable': true,
    'socket.keepalive.enable': true,
  } as const;
}

/**
 * @param quiet for probes that expect a refused connection (a health check while a broker
 *   starts): librdkafka's connection errors are not logged.
 */
export function createKafka(
  clientId: string,
  settings: KafkaSettings = config().kafka,
  quiet = false,
): Kafka {
  const { logLevel } = confluent.KafkaJS;
  return new confluent.KafkaJS.Kafka({
    ...librdkafkaConfig(settings, clientId),
    // The KafkaJS-shaped block wants the brokers too; librdkafka's own keys above take precedence.
    kafkaJS: {
      brokers: settings.brokers,
      logger: kafkaLogger,
      logLevel: quiet ? logLevel.NOTHING : logLevel.WARN,
    },
  });
}

/** How long the broker may hold a consumer's fetch, and for how many bytes. */
export interface FetchWait {
  /** The broker answers once it has this many bytes, or `maxWaitMs` has passed: 1 by default. */
  minBytes?: number;
  /** The longest the broker holds a fetch short of `minBytes`: `longestFetchWaitMs` by default. */
  maxWaitMs?: number;
}

/**
 * A member of a consumer group that commits its own offsets, and reads a topic from its beginning
 * when the group has none. librdkafka heartbeats from its own thread, so a busy event loop does
 * not look dead; a member that really died (kill -9) hands its partitions on within 10 s. A fetch
 * returns as soon as `minBytes` are there, by default a record, waiting at most `maxWaitMs`
 * (waiting for a megabyte made a span take 600-700 ms instead of 200 to become queryable); a
 * batch holds what librdkafka prefetched while the last one was being handled, up to ten
 * thousand: large under load.
 *
 * With a record as `minBytes`, the broker answers a waiting fetch the moment a record lands, so
 * the wait costs no latency (a record reached eachBatch 2.6-4.0 ms after its send with fetches of
 * 50 ms and of 1,000 alike): it only bounds a fetch that finds nothing, and each such fetch is a
 * round trip for the broker. Waits of 50-100 ms made the platform's idle groups send some 85
 * fetches a second, which cost Kafka about 45 ms of CPU a second with nothing to read.
 */
export function groupConsumer(
  kafka: Kafka,
  groupId: string,
  { maxWaitMs = longestFetchWaitMs, minBytes = 1 }: FetchWait = {},
): Consumer {
  if (maxWaitMs > longestFetchWaitMs)
    throw new RangeError(`a fetch waits at most ${longestFetchWaitMs} ms; ${maxWaitMs} was asked`);
  return kafka.consumer({
    kafkaJS: {
      groupId,
      fromBeginning: true,
      autoCommit: false,
      sessionTimeout: 10_000,
      heartbeatInterval: 2_000,
      maxWaitTimeInMs: maxWaitMs,
      minBytes,
      maxBytes: 64 * 1024 * 1024,
      allowAutoTopicCreation: false,
    },
    'js.consumer.max.batch.size': 10_000,
  });
}

/** Runs `work` with a connected admin client, disconnected after. */
export async function withAdmin<T>(
  clientId: string,
  work: (admin: Admin) => Promise<T>,
  settings: KafkaSettings = config().kafka,
  quiet = false,
): Promise<T> {
  const admin = createKafka(clientId, settings, quiet).admin();
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.disconnect();
  }
}

/** A topic's end: the offset the next message will get, per partition. */
export function topicEnd(
  topic: string,
  settings: KafkaSettings = config().kafka,
): Promise<Map<number, bigint>> {
  return withAdmin(
    'orrery-topic-end',
    async (admin) => {
      const offsets = await admin.fetchTopicOffsets(topic);
      return new Map(offsets.map((end) => [end.partition, BigInt(end.high)] as const));
    },
    settings,
  );
}
