import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { UsageRecorded } from '../../../domain/usage/events.ts';
import { sql } from '../../../platform/clickhouse.ts';
import { publishUsage } from '../../../producers/usage.ts';
import { deadLetterTopic, topics } from '../../../schemas/events/topics.ts';
import { readTopic } from '../../harness/kafka.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform.stop());

it('sends an undecodable message to the dead-letter topic and goes on', async () => {
  const marker = `garbage-${randomUUID()}`;
  const orgId = `org_${randomUUID()}`;
  // Not in the Confluent framing at all: no magic byte, no schema id.
  await platform.producer.sendRaw(topics.usage.name, [{ key: orgId, value: Buffer.from(`\u0007${marker}`) }]);
  const good: UsageRecorded = {
    type: 'UsageRecorded',
    eventId: randomUUID(),
    orgId,
    occurredAt: new Date(),
    requestId: `req_${randomUUID()}`,
    keyId: 'key_dlq',
    model: 'test-model',
    endpoint: 'previews',
    inputTokens: 1,
    outputTokens: 1,
    fallback: true,
    latencyMs: 1,
  };
  await publishUsage(platform.producer, [good]);

  // The consumer went on: the good event behind the garbage is projected.
  await eventually(async () => {
    const result = await platform.clickhouse.query({
      query: sql`SELECT count() AS n FROM requests FINAL WHERE request_id = ${good.requestId}`.text,
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ n: string }>();
    return Number(row?.n) === 1 ? true : undefined;
  });

  // And the garbage is on the group's dead-letter topic, with where it came from and why.
  const read = await readTopic(deadLetterTopic('orrery-usage-clickhouse'), (messages) =>
    messages.some((message) => message.value.toString().includes(marker)),
  );
  const { headers } = read.find((message) => message.value.toString().includes(marker))!;
  expect(headers['orrery.dlq.reason']).toBe('undecodable');
  expect(headers['orrery.dlq.topic']).toBe(topics.usage.name);
  expect(Number(headers['orrery.dlq.offset'])).toBeGreaterThanOrEqual(0);
});
