import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utcDay } from '../../../domain/billing/day.ts';
import type { UsageRecorded } from '../../../domain/usage/events.ts';
import { publishUsage } from '../../../producers/usage.ts';
import { usagePostgresProjection } from '../../../projections/usage-postgres.ts';
import { topics } from '../../../schemas/events/topics.ts';
import { eventually, runProjectionAs, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';

// The daily usage rollup is exact under redelivery (DESIGN.md, idempotence): a batch projected
// and then delivered again, because the consumer died before committing, is counted once.
// The test's group counts into a scratch copy of usage_daily, so it adds nothing to the
// platform's rollups (the platform's own group projects the same events).

let platform: TestPlatform;
const suffix = randomUUID().replace(/-/g, '').slice(0, 12);
const table = `usage_daily_redelivery_${suffix}`;
const countedTable = `usage_counted_redelivery_${suffix}`;
beforeAll(async () => {
  platform = await startTestPlatform({ consumers: false });
  await platform.pool.query(`CREATE TABLE ${table} (LIKE usage_daily INCLUDING ALL)`);
  await platform.pool.query(`CREATE TABLE ${countedTable} (LIKE usage_counted INCLUDING ALL)`);
});
afterAll(async () => {
  await platform.pool.query(`DROP TABLE IF EXISTS ${table}`);
  await platform.pool.query(`DROP TABLE IF EXISTS ${countedTable}`);
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
    const projection = () =>
      usagePostgresProjection(platform.pool, {
        groupId,
        tables: { rollup: table, counted: countedTable },
      });
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
    // The client sizes batches to the rate it sees, from one message up: the first life may write
    // one batch of one event, crash, and be given that batch again, until it is stopped.
    await eventually(
      async () => ((await counted(orgId))?.requests > 0 && crashed.length > 0 ? true : undefined),
      30_000,
      'first life: a batch written, then a crash',
    );
    await first.stop();
    const firstLife = await counted(orgId);

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
    await eventually(
      async () => ((await counted(orgId))?.requests === 3 ? true : undefined),
      30_000,
      'the rest of the events',
    );
    await second.stop();
    expect(firstLife.requests).toBeGreaterThan(0);
    expect(await counted(orgId)).toEqual(expected);
  });

  it('counts one request published twice (a publish that timed out, then its retry) once', async () => {
    const orgId = `org_twice_${randomUUID()}`;
    const groupId = `test-usage-postgres-${suffix}-twice`;
    const running = await runProjectionAs(
      platform,
      usagePostgresProjection(platform.pool, { groupId, tables: { rollup: table, counted: countedTable } }),
      groupId,
    );
    const first = usage(orgId, 40);
    // The retry is the same request (id and time) in a new event.
    const retry: UsageRecorded = { ...first, eventId: randomUUID() };
    const after = usage(orgId, 2);
    await publishUsage(platform.producer, [first]);
    await publishUsage(platform.producer, [retry]);
    // Keyed by org, all three are on one partition, projected in this order: once the last is
    // counted, the retry has been seen.
    await publishUsage(platform.producer, [after]);
    await eventually(
      async () => ((await counted(orgId))?.input_tokens === 42 ? true : undefined),
      30_000,
      'the request after the retry',
    );
    await running.stop();
    expect(await counted(orgId)).toEqual({ requests: 2, input_tokens: 42, output_tokens: 4, fallbacks: 0 });
  });
});
