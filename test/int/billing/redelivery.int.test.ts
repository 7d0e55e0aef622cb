import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utcDay } from '../../../domain/inference/pricing.ts';
import type { UsageRecorded } from '../../../domain/usage/events.ts';
import { topics } from '../../../platform/topics.ts';
import { publishUsage } from '../../../producers/usage.ts';
import { usagePostgresProjection } from '../../../projections/usage-postgres.ts';
import { eventually, runProjectionAs, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';

// The daily usage rollup is exact under redelivery (DESIGN.md, idempotence): a batch projected
// and then delivered again, because the consumer died before committing, is counted once.
// The test's group counts into a scratch copy of usage_daily, so it adds nothing to the
// platform's rollups (the platform's own group projects the same events).

let platform: TestPlatform;
const suffix = randomUUID().replace(/-/g, '').slice(0, 12);
const table = `usage_daily_redelivery_${suffix}`;
beforeAll(async () => {
  platform = await startTestPlatform({ consumers: false });
  await platform.pool.query(`CREATE TABLE ${table} (LIKE usage_daily INCLUDING ALL)`);
});
afterAll(async () => {
  await platform.pool.query(`DROP TABLE IF EXISTS ${table}`);
  await platform.pool.query('DELETE FROM projection_offsets WHERE group_id LIKE $1', [
    `test-usage-postgres-${suffix}%`,
  ]);
  await platform.stop();
});

function usage(orgId: string, inputTokens: number): UsageRecorded {
  return {
    type: 'UsageRecorded',
    eventId: randomUUID(),
    orgId,
    occurredAt: new Date(),
    requestId: `req_${randomUUID()}`,
    keyId: 'key_redelivery',
    model: 'scribe',
    endpoint: 'titles',
    inputTokens,
    outputTokens: 2,
    fallback: inputTokens === 1,
    latencyMs: 5,
  };
}

async function counted(orgId: string) {
  const { rows } = await platform.pool.query(
    `SELECT requests, input_tokens, output_tokens, fallbacks FROM ${table} WHERE org_id = $1 AND day = $2`,
    [orgId, utcDay(Date.now())],
  );
  return rows[0];
}

describe('usage rollups under redelivery', () => {
  it('counts a redelivered batch once', async () => {
    const orgId = `org_redelivery_${randomUUID()}`;
    const expected = { requests: 3, input_tokens: 150_001, output_tokens: 6, fallbacks: 1 };
    const groupId = `test-usage-postgres-${suffix}`;
    const projection = () => usagePostgresProjection(platform.pool, { groupId, rollupTable: table });
    const usageTopic = topics.usage.name;

    // First life: each batch is written, then the consumer dies before committing it.
    const crashed: number[] = [];
    const first = await runProjectionAs(platform, projection(), groupId, {
      async afterProjectBeforeCommit(batch) {
        if (batch.topic === usageTopic) crashed.push(batch.partition);
        throw new Error('simulated crash between the write and the commit');
      },
    });
    await publishUsage(platform.producer, [usage(orgId, 100_000), usage(orgId, 50_000), usage(orgId, 1)]);
    await eventually(
      async () => ((await counted(orgId))?.requests === 3 ? true : undefined),
      30_000,
      'first life',
    );
    await eventually(async () => (crashed.length > 0 ? true : undefined), 30_000, 'a crash');
    await first.stop();
    expect(await counted(orgId)).toEqual(expected);

    // Second life: the same group is given the uncommitted batches again, and commits them.
    const redelivered: number[] = [];
    const second = await runProjectionAs(platform, projection(), groupId, {
      async afterProjectBeforeCommit(batch) {
        redelivered.push(batch.partition);
      },
    });
    await eventually(
      async () => (crashed.every((partition) => redelivered.includes(partition)) ? true : undefined),
      30_000,
      'the crashed batches delivered again',
    );
    await second.stop();
    expect(await counted(orgId)).toEqual(expected);
  });
});
