import { connect } from 'node:net';
import { type ISocketFactory, Kafka, logLevel as kafkaLogLevel, type LogEntry } from 'kafkajs';
import { config } from './config.ts';
import { logger } from './logger.ts';

const levels: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [kafkaLogLevel.ERROR]: 'error',
  [kafkaLogLevel.WARN]: 'warn',
  [kafkaLogLevel.INFO]: 'info',
  [kafkaLogLevel.DEBUG]: 'debug',
};

/** kafkajs logs through our pino logger, so every process logs JSON. */
function kafkaLogCreator() {
  return ({ level, log }: LogEntry) => {
    const { message, ...rest } = log;
    logger[levels[level] ?? 'info']({ kafka: rest }, `kafka: ${message}`);
  };
}

/**
 * kafkajs (our consumers and admin calls) leaves Nagle's algorithm on; the Java client and
 * librdkafka turn it off. A fetch, heartbeat or offset commit written while an earlier request is
 * unacknowledged would otherwise wait for that acknowledgement.
 */
const socketFactory: ISocketFactory = ({ host, port, onConnect }) => {
  const socket = connect({ host, port, noDelay: true }, onConnect);
  socket.setKeepAlive(true, 60_000);
  return socket;
};

export function createKafka(clientId: string, brokers: string[] = config().kafka.brokers): Kafka {
  return new Kafka({
    clientId,
    brokers,
    logLevel: kafkaLogLevel.WARN,
    logCreator: kafkaLogCreator,
    socketFactory,
    retry: { initialRetryTime: 200, retries: 8 },
  });
}

/** A topic's end: the offset the next message will get, per partition. */
export async function topicEnd(topic: string): Promise<Map<number, bigint>> {
  const admin = createKafka('orrery-topic-end').admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(offsets.map((end) => [end.partition, BigInt(end.high)] as const));
  } finally {
    await admin.disconnect();
  }
}
