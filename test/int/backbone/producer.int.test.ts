import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { config } from '../../../platform/config.ts';
import { createKafka } from '../../../platform/kafka.ts';
import { IdempotentProducer, ProduceFailed } from '../../../producers/wire/idempotent-producer.ts';
import { partitionForKey } from '../../../producers/wire/partitioner.ts';

// The platform's own producer (producers/wire/) against the real broker, read back by kafkajs:
// keys land on the default partitioner's partition, values and headers arrive intact, gzip and
// plain batches both decode, and sequences carry on over a new connection.

const topic = `orrery.test.producer.${randomUUID()}.v1`;
const partitions = 4;
const admin = createKafka('orrery-test-producer-admin').admin();
const producer = new IdempotentProducer({
  clientId: 'orrery-test-producer',
  brokers: config().kafka.brokers,
  timeoutMs: 10_000,
});

beforeAll(async () => {
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
});
afterAll(async () => {
  producer.close();
  await admin.deleteTopics({ topics: [topic] });
  await admin.disconnect();
});

async function readAll(count: number) {
  const consumer = createKafka('orrery-test-producer-reader').consumer({ groupId: `reader-${randomUUID()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const read: { partition: number; key: string | null; value: string; headers: Record<string, string> }[] =
    [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`read ${read.length} of ${count}`)), 20_000);
    void consumer.run({
      eachMessage: async ({ partition, message }) => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(message.headers ?? {})) headers[name] = String(value);
        read.push({
          partition,
          key: message.key?.toString() ?? null,
          value: message.value!.toString(),
          headers,
        });
        if (read.length >= count) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await consumer.disconnect();
  return read;
}

it('writes what kafkajs reads back, on the partition of each key, across reconnections', async () => {
  const small = Array.from({ length: 20 }, (_, i) => ({
    key: `org_${i % 7}`,
    value: Buffer.from(`small ${i}`),
  }));
  await producer.send([{ topic, messages: small }], 16 * 1024);
  producer.close(); // the next send connects again and carries on the partitions' sequences
  const large = { key: 'org_large', value: Buffer.from('x'.repeat(40_000)), headers: { why: 'gzip' } };
  const unkeyed = { key: null, value: Buffer.from('no key'), headers: { 'orrery.dlq.reason': 'test' } };
  await producer.send([{ topic, messages: [large, unkeyed] }], 16 * 1024);

  const read = await readAll(22);
  for (const message of small) {
    const found = read.find((r) => r.value === message.value.toString());
    expect(found?.partition).toBe(partitionForKey(Buffer.from(message.key), partitions));
    expect(found?.key).toBe(message.key);
  }
  expect(read.find((r) => r.key === 'org_large')).toMatchObject({
    value: large.value.toString(),
    headers: { why: 'gzip' },
  });
  expect(read.find((r) => r.key === null)).toMatchObject({
    value: 'no key',
    headers: { 'orrery.dlq.reason': 'test' },
  });
  expect(read).toHaveLength(22); // each once
});

it('refuses a topic that does not exist, naming it', async () => {
  const missing = `orrery.test.missing.${randomUUID()}.v1`;
  const shortLived = new IdempotentProducer({
    clientId: 'orrery-test-producer',
    brokers: config().kafka.brokers,
    timeoutMs: 1_000,
  });
  try {
    const refused = await shortLived
      .send([{ topic: missing, messages: [{ key: 'k', value: Buffer.from('v') }] }], 16 * 1024)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(ProduceFailed);
    expect((refused as Error).message).toBe(`the topic ${missing} does not exist`);
  } finally {
    shortLived.close();
  }
});
