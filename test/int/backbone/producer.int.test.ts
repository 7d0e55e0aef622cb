import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SpanEvent } from '../../../domain/tracing/events.ts';
import { config } from '../../../platform/config.ts';
import { keyPartition, withAdmin } from '../../../platform/kafka.ts';
import type { KafkaSettings } from '../../../platform/kafka-settings.ts';
import { createEventProducer, type EventProducer, PublishFailed } from '../../../producers/producer.ts';
import { publishSpanEvents } from '../../../producers/spans.ts';
import { readTopic } from '../../harness/kafka.ts';

// The platform's one producer against the real broker, read back through the same client: a key's
// messages stay on one partition in the order sent, values and headers arrive intact, each once,
// and one caller's failure is that caller's alone.

const topic = `orrery.test.producer.${randomUUID()}.v1`;
const partitions = 4;
let producer: EventProducer;

/** The local stack's settings with a caller's wait short enough for a test. */
const withCallerWait = (callerMs: number, overrides: Partial<KafkaSettings> = {}): KafkaSettings => ({
  ...config().kafka,
  ...overrides,
  timeouts: { requestMs: Math.min(callerMs, 1000), deliveryMs: callerMs, callerMs },
});

beforeAll(async () => {
  await withAdmin('orrery-test-producer-admin', (admin) =>
    admin.createTopics({ topics: [{ topic, numPartitions: partitions }] }),
  );
  producer = await createEventProducer('orrery-test-producer');
});
afterAll(async () => {
  await producer.disconnect();
  await withAdmin('orrery-test-producer-admin', (admin) => admin.deleteTopics({ topics: [topic] }));
});

it('writes each message once, a key on one partition in the order sent, headers intact', async () => {
  const keyed = Array.from({ length: 40 }, (_, i) => ({
    key: `org_${i % 7}`,
    value: Buffer.from(`small ${i}`),
  }));
  // Concurrent callers, as the API's requests are: librdkafka batches them together.
  await Promise.all(keyed.map((message) => producer.sendRaw(topic, [message])));
  const large = { key: 'org_large', value: Buffer.from('x'.repeat(2_000_000)), headers: { why: 'large' } };
  const unkeyed = { key: null, value: Buffer.from('no key'), headers: { 'orrery.dlq.reason': 'test' } };
  await producer.sendRaw(topic, [large, unkeyed]);
  const ordered = Array.from({ length: 10 }, (_, i) => `ordered ${i}`);
  for (const value of ordered)
    await producer.sendRaw(topic, [{ key: 'org_ordered', value: Buffer.from(value) }]);

  const read = await readTopic(topic, (messages) => messages.length >= 52);
  expect(read).toHaveLength(52);
  for (let key = 0; key < 7; key += 1) {
    const ofKey = read.filter((message) => message.key === `org_${key}`);
    expect(new Set(ofKey.map((message) => message.partition)).size).toBe(1);
    const sent = keyed
      .filter((message) => message.key === `org_${key}`)
      .map((message) => message.value.toString());
    expect(new Set(ofKey.map((message) => message.value.toString()))).toEqual(new Set(sent));
  }
  const ofOrdered = read.filter((message) => message.key === 'org_ordered');
  expect(new Set(ofOrdered.map((message) => message.partition)).size).toBe(1);
  expect(
    [...ofOrdered].sort((a, b) => Number(a.offset - b.offset)).map((message) => message.value.toString()),
  ).toEqual(ordered);
  expect(read.find((message) => message.key === 'org_large')).toMatchObject({ headers: { why: 'large' } });
  expect(read.find((message) => message.key === 'org_large')?.value.length).toBe(2_000_000);
  expect(read.find((message) => message.key === null)).toMatchObject({
    headers: { 'orrery.dlq.reason': 'test' },
  });
});

// Kafka's own murmur2 of these keys (clients' UtilsTest.testMurmur2 in apache/kafka), computed by
// the Java client, not here: a keyed message belongs on toPositive(murmur2(key)) % partitions, as
// every Java, kafkajs and librdkafka (murmur2_random) producer of a topic places it.
const javaMurmur2: [string, number][] = [
  ['21', -973932308],
  ['foobar', -790332482],
  ['a-little-bit-long-string', -985981536],
  ['a-little-bit-longer-string', -1486304829],
  ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
  ['abc', 479470107],
];

it("places a key on the Java client's partition (murmur2), as every other producer of the topic does", async () => {
  const marker = randomUUID();
  await producer.sendRaw(
    topic,
    javaMurmur2.map(([key]) => ({ key, value: Buffer.from(marker) })),
  );
  const read = await readTopic(
    topic,
    (messages) => messages.filter((m) => m.value.toString() === marker).length >= javaMurmur2.length,
  );
  const placed = read
    .filter((message) => message.value.toString() === marker)
    .map((message) => [message.key, message.partition]);
  // The six keys cover all four partitions, so a partitioner other than murmur2 moves some.
  expect(new Set(javaMurmur2.map(([, hash]) => (hash & 0x7fffffff) % partitions)).size).toBe(partitions);
  expect(placed).toEqual(
    expect.arrayContaining(javaMurmur2.map(([key, hash]) => [key, (hash & 0x7fffffff) % partitions])),
  );
  expect(placed).toHaveLength(javaMurmur2.length);
  // keyPartition says the same: the spans' publisher places a trace's events by it (producers/spans.ts).
  expect(placed).toEqual(
    expect.arrayContaining(placed.map(([key]) => [key, keyPartition(String(key), partitions)])),
  );
});

it("reads a stream's partition count from the cluster, as provisioning made it", async () => {
  expect(await producer.partitionCount('spans')).toBe(config().kafka.partitions);
});

it('puts a record on the partition it names, whatever its key', async () => {
  const marker = randomUUID();
  const key = 'abc';
  const named = (keyPartition(key, partitions) + 1) % partitions;
  await producer.sendRaw(topic, [{ key, value: Buffer.from(marker), partition: named }]);
  const read = await readTopic(topic, (messages) => messages.some((m) => m.value.toString() === marker));
  expect(read.find((message) => message.value.toString() === marker)?.partition).toBe(named);
});

it('refuses a SpansReceived whose traces fall on two partitions, sending nothing', async () => {
  const count = await producer.partitionCount('spans');
  const partitionOf = (traceId: string) => keyPartition(`org_mixed/${traceId}`, count);
  const first = 'trace-a';
  const other = ['trace-b', 'trace-c', 'trace-d', 'trace-e'].find(
    (id) => partitionOf(id) !== partitionOf(first),
  );
  expect(other).toBeDefined();
  const trace = (traceId: string) => ({ traceId, traceFirstReceivedAt: new Date(), spans: [] });
  const mixed: SpanEvent = {
    type: 'SpansReceived',
    eventId: randomUUID(),
    orgId: 'org_mixed',
    occurredAt: new Date(),
    traces: [trace(first), trace(other ?? first)],
  };
  await expect(publishSpanEvents(producer, [mixed])).rejects.toThrow(/more than one partition/);
});

it('sends at-once records without lingering for other callers', async () => {
  // Lingering longer than the caller waits: a send that lingered would fail with PublishFailed.
  const lingering = await createEventProducer('orrery-test-producer-at-once', {
    settings: { ...config().kafka, timeouts: { requestMs: 1000, deliveryMs: 30_000, callerMs: 10_000 } },
    lingerMs: 20_000,
  });
  try {
    const marker = randomUUID();
    await lingering.sendRaw(topic, [{ key: 'k', value: Buffer.from(marker) }], { atOnce: true });
    const read = await readTopic(topic, (messages) => messages.some((m) => m.value.toString() === marker));
    expect(read.filter((message) => message.value.toString() === marker)).toHaveLength(1);
    // Two at once: the one flush under way covers the second too.
    await Promise.all(
      ['a', 'b'].map((key) =>
        lingering.sendRaw(topic, [{ key, value: Buffer.from(`${marker}-${key}`) }], { atOnce: true }),
      ),
    );
  } finally {
    await lingering.disconnect();
  }
});

it("fails only the caller whose records failed: another caller's send goes through", async () => {
  const shortWait = await createEventProducer('orrery-test-producer-isolation', {
    settings: withCallerWait(2000),
  });
  try {
    const missing = `orrery.test.missing.${randomUUID()}.v1`;
    const marker = randomUUID();
    const [refused, accepted] = await Promise.allSettled([
      shortWait.sendRaw(missing, [{ key: 'k', value: Buffer.from('nowhere') }]),
      shortWait.sendRaw(topic, [{ key: 'k', value: Buffer.from(marker) }]),
    ]);
    expect(refused.status).toBe('rejected');
    expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(PublishFailed);
    expect(accepted.status).toBe('fulfilled');
    const read = await readTopic(topic, (messages) => messages.some((m) => m.value.toString() === marker));
    expect(read.filter((message) => message.value.toString() === marker)).toHaveLength(1);
  } finally {
    await shortWait.disconnect();
  }
});

it('answers a caller within its wait when no broker answers, saying so', async () => {
  const unreachable = await createEventProducer('orrery-test-producer-unreachable', {
    settings: withCallerWait(1500, { brokers: ['127.0.0.1:1'] }),
  });
  try {
    const started = Date.now();
    const refused = await unreachable.sendRaw(topic, [{ key: 'k', value: Buffer.from('v') }]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(PublishFailed);
    expect(Date.now() - started).toBeLessThan(10_000);
  } finally {
    await unreachable.disconnect();
  }
});
