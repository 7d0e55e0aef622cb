import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utcDay } from '../../../domain/billing/day.ts';
import type { UsageRecorded } from '../../../domain/usage/events.ts';
import { publishUsage } from '../../../producers/usage.ts';
import type { Delivered } from '../../../projections/projection.ts';
import { usagePostgresProjection } from '../../../projections/usage-postgres.ts';
import { topics } from '../../../schemas/events/topics.ts';
import { eventually, runProjectionAs, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';

// The daily usage rollup is exact under redelivery (DESIGN.md, idempotence): a batch projected
// and then delivered again, because the consumer died before committing, is counted once; and
// so is a request published twice, whether its copies come in one batch or in two.
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

describe('usage rollups, one statement per batch', () => {
  it('counts each request once within a batch and across batches, summed per org, model and UTC day', async () => {
    const groupId = `test-usage-postgres-${suffix}-batch`;
    const projection = usagePostgresProjection(platform.pool, {
      groupId,
      tables: { rollup: table, counted: countedTable },
    });
    const orgA = `org_batch_a_${randomUUID()}`;
    const orgB = `org_batch_b_${randomUUID()}`;
    // Either side of a UTC midnight: one day each.
    const lateOnDay1 = new Date('2026-03-01T23:59:59.999Z');
    const earlyOnDay2 = new Date('2026-03-02T00:00:00.000Z');
    const request = (
      orgId: string,
      model: string,
      occurredAt: Date,
      inputTokens: number,
      fallback = false,
    ) => ({
      ...usage(orgId, inputTokens),
      model,
      occurredAt,
      outputTokens: inputTokens % 7,
      fallback,
    });
    // A retry is the same request (id, time, tokens) in a new event.
    const again = (event: UsageRecorded): UsageRecorded => ({ ...event, eventId: randomUUID() });
    const next = new Map<number, number>();
    const delivered = (partition: number, event: UsageRecorded): Delivered<UsageRecorded> => {
      const offset = next.get(partition) ?? 0;
      next.set(partition, offset + 1);
      return { topic: topics.usage.name, partition, offset: String(offset), key: event.orgId, event };
    };

    const r1 = request(orgA, 'scribe', lateOnDay1, 10);
    await projection.project([delivered(0, r1)], groupId);

    const r2 = request(orgA, 'scribe', lateOnDay1, 20);
    const r3 = request(orgA, 'scribe', earlyOnDay2, 40, true);
    const r4 = request(orgA, 'quill', lateOnDay1, 80);
    const r5 = request(orgB, 'scribe', lateOnDay1, 160);
    const r6 = request(orgB, 'scribe', lateOnDay1, 320, true);
    // Two partitions in one batch, as a gathered write would have them.
    const second = [
      delivered(0, again(r1)), // counted in the first batch
      delivered(0, r2),
      delivered(0, r3),
      delivered(0, again(r2)), // twice in this batch
      delivered(0, r4),
      delivered(1, r5),
      delivered(1, r6),
      delivered(1, again(r6)), // twice in this batch
    ];
    await projection.project(second, groupId);

    const rollups = async () =>
      (
        await platform.pool.query(
          `SELECT org_id, model, to_char(day, 'YYYY-MM-DD') AS day, requests, input_tokens, output_tokens, fallbacks
             FROM ${table} WHERE org_id = ANY($1) ORDER BY org_id, model, day`,
          [[orgA, orgB]],
        )
      ).rows;
    const row = (orgId: string, model: string, day: string, counted: UsageRecorded[]) => ({
      org_id: orgId,
      model,
      day,
      requests: counted.length,
      input_tokens: counted.reduce((sum, event) => sum + event.inputTokens, 0),
      output_tokens: counted.reduce((sum, event) => sum + event.outputTokens, 0),
      fallbacks: counted.filter((event) => event.fallback).length,
    });
    const expected = [
      row(orgA, 'quill', '2026-03-01', [r4]),
      row(orgA, 'scribe', '2026-03-01', [r1, r2]),
      row(orgA, 'scribe', '2026-03-02', [r3]),
      row(orgB, 'scribe', '2026-03-01', [r5, r6]),
    ];
    // Figures that say which events were counted: no two subsets of them add up alike.
    expect(expected.map((rollup) => rollup.input_tokens)).toEqual([80, 30, 40, 480]);
    expect(await rollups()).toEqual(expected);
    const { rows: countedIds } = await platform.pool.query(
      `SELECT request_id FROM ${countedTable} WHERE request_id = ANY($1) ORDER BY request_id`,
      [[r1, r2, r3, r4, r5, r6].map((event) => event.requestId)],
    );
    expect(countedIds).toHaveLength(6);

    // The second batch delivered again (its commit to Kafka lost) adds nothing.
    await projection.project(second, groupId);
    expect(await rollups()).toEqual(expected);
  });
});
