import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createOrg } from '../../../api/admin/commands.ts';
import type { UsageRecorded } from '../../../domain/usage/events.ts';
import { sql } from '../../../platform/clickhouse.ts';
import { publishOrgEvents } from '../../../producers/org.ts';
import { publishUsage } from '../../../producers/usage.ts';
import { orgPostgresProjection } from '../../../projections/org.ts';
import { usageClickHouseProjection } from '../../../projections/usage-clickhouse.ts';
import { eventually, runProjectionAs, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform.stop());

function usageEvent(orgId: string): UsageRecorded {
  return {
    type: 'UsageRecorded',
    eventId: randomUUID(),
    orgId,
    occurredAt: new Date(),
    requestId: `req_${randomUUID()}`,
    keyId: 'key_test',
    model: 'test-model',
    endpoint: 'titles',
    inputTokens: 120,
    outputTokens: 6,
    fallback: false,
    latencyMs: 42.5,
  };
}

async function requestRows(requestId: string, final: boolean): Promise<number> {
  const result = await platform.clickhouse.query({
    query:
      sql`SELECT count() AS n FROM requests ${final ? sql`FINAL` : sql``} WHERE request_id = ${requestId}`
        .text,
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ n: string }>();
  return Number(row?.n ?? 0);
}

describe('projections on the real stack', () => {
  it('projects an org event into Postgres', async () => {
    const orgId = `org_${randomUUID()}`;
    await publishOrgEvents(platform.producer, [
      { type: 'OrgCreated', eventId: randomUUID(), orgId, occurredAt: new Date(), name: 'Projected Org' },
    ]);
    const row = await eventually(async () => {
      const result = await platform.pool.query('SELECT name, tracing_enabled FROM orgs WHERE org_id = $1', [
        orgId,
      ]);
      return result.rows[0];
    });
    expect(row).toEqual({ name: 'Projected Org', tracing_enabled: false });
  });

  it("projects a usage event into ClickHouse, a key's or the person's whose session sent it", async () => {
    const event = usageEvent(`org_${randomUUID()}`);
    const playground = { ...usageEvent(event.orgId), keyId: '', personId: 'person_test' };
    await publishUsage(platform.producer, [event, playground]);
    for (const { requestId } of [event, playground])
      await eventually(async () => ((await requestRows(requestId, true)) === 1 ? true : undefined));
    const row = async (requestId: string) => {
      const result = await platform.clickhouse.query({
        query:
          sql`SELECT key_id, person_id, model, input_tokens, latency_ms FROM requests FINAL WHERE request_id = ${requestId}`
            .text,
        format: 'JSONEachRow',
      });
      return result.json();
    };
    const stored = { model: 'test-model', input_tokens: '120', latency_ms: 42.5 };
    expect(await row(event.requestId)).toEqual([{ key_id: 'key_test', person_id: '', ...stored }]);
    expect(await row(playground.requestId)).toEqual([{ key_id: '', person_id: 'person_test', ...stored }]);
  });

  it('changes nothing when a batch is redelivered after the write and before the commit', async () => {
    const { orgId } = await createOrg(platform.admin, 'Redelivery Org');
    const usage = usageEvent(orgId);
    const groupSuffix = randomUUID();
    const crashed = new Set<string>();

    // First life: the batch is written to both stores, then the consumer dies before committing
    // (each group may be given its batch again and crash again until it is stopped).
    const crash = (group: string) => async () => {
      crashed.add(group);
      throw new Error('simulated crash between the write and the commit');
    };
    const pgGroup = `test-org-postgres-${groupSuffix}`;
    const chGroup = `test-usage-clickhouse-${groupSuffix}`;
    const firstPg = await runProjectionAs(platform, orgPostgresProjection(platform.pool), pgGroup, {
      afterProjectBeforeCommit: crash(pgGroup),
    });
    const firstCh = await runProjectionAs(platform, usageClickHouseProjection(platform.clickhouse), chGroup, {
      afterProjectBeforeCommit: crash(chGroup),
    });
    // The test's groups start at the topics' end: these are the batches they see first.
    await createApiKey(platform.admin, orgId, ['traces:write'], 'before');
    await publishUsage(platform.producer, [usage]);
    await eventually(async () => (crashed.size === 2 ? true : undefined), 30_000, 'both groups crashed');
    await Promise.all([firstPg.stop(), firstCh.stop()]);
    const keysBefore = await platform.pool.query(
      'SELECT key_id, revoked_at FROM api_keys WHERE org_id = $1',
      [orgId],
    );
    expect(await requestRows(usage.requestId, true)).toBe(1);

    // Second life: the same group gets the uncommitted batch again and commits it.
    const committed = new Set<string>();
    const record = (group: string) => async () => {
      committed.add(group);
    };
    const secondPg = await runProjectionAs(platform, orgPostgresProjection(platform.pool), pgGroup, {
      afterProjectBeforeCommit: record(pgGroup),
    });
    const secondCh = await runProjectionAs(
      platform,
      usageClickHouseProjection(platform.clickhouse),
      chGroup,
      {
        afterProjectBeforeCommit: record(chGroup),
      },
    );
    await eventually(async () => (committed.size === 2 ? true : undefined), 30_000, 'redelivered batches');
    await Promise.all([secondPg.stop(), secondCh.stop()]);

    const keysAfter = await platform.pool.query('SELECT key_id, revoked_at FROM api_keys WHERE org_id = $1', [
      orgId,
    ]);
    expect(keysAfter.rows).toEqual(keysBefore.rows);
    expect(keysAfter.rows).toHaveLength(1);
    const grants = await platform.pool.query('SELECT count(*)::int AS n FROM orgs WHERE org_id = $1', [
      orgId,
    ]);
    expect(grants.rows[0].n).toBe(1);
    expect(await requestRows(usage.requestId, true)).toBe(1);
  });
});
