import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runRetention } from '../../../jobs/retention.ts';
import { retentionCutoff } from '../../../jobs/span-retention.ts';
import { startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { spanId, traceId } from '../../harness/tracing.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ consumers: false });
});
afterAll(() => platform.stop());

async function seedTrace(orgId: string, firstReceivedAt: Date) {
  const trace = traceId();
  await platform.pool.query(
    `INSERT INTO ingest_traces (org_id, trace_id, first_received_at, span_ids)
     VALUES ($1, $2, $3, ARRAY[('x' || $4)::bit(64)::bigint])`,
    [orgId, trace, firstReceivedAt, spanId()],
  );
  return trace;
}

it('forgets the admission ledger of traces past retention, with the same cutoff as the span partitions', async () => {
  const orgId = `org_${randomUUID()}`;
  const now = new Date();
  const cutoff = retentionCutoff(now);
  expect(now.getTime() - cutoff.getTime()).toBeGreaterThanOrEqual(30 * 24 * 3600 * 1000);
  const expired = await seedTrace(orgId, new Date(cutoff.getTime() - 1));
  const kept = await seedTrace(orgId, cutoff);
  await platform.pool.query(
    `INSERT INTO deleted_traces (org_id, trace_id, deleted_at) VALUES ($1, $2, now() - interval '25 hours'), ($1, $3, now())`,
    [orgId, traceId(), kept],
  );

  // Admission groups' fates, one older than the spans topic keeps events, one recent.
  const [oldGroup, recentGroup] = [randomUUID(), randomUUID()];
  await platform.pool.query(
    `INSERT INTO admission_groups (group_id, kept, decided_at)
     VALUES ($1, true, $3::timestamptz - interval '32 days'), ($2, false, $3)`,
    [oldGroup, recentGroup, now],
  );

  const result = await runRetention({ clickhouse: platform.clickhouse, pool: platform.pool }, now);
  expect(result.forgottenTraces).toBeGreaterThanOrEqual(1);
  expect(result.forgottenGroups).toBeGreaterThanOrEqual(1);
  const groups = await platform.pool.query('SELECT group_id FROM admission_groups WHERE group_id = ANY($1)', [
    [oldGroup, recentGroup],
  ]);
  expect(groups.rows.map((row) => row.group_id)).toEqual([recentGroup]);

  const hex = "replace(trace_id::text, '-', '') AS trace_id";
  const traces = await platform.pool.query(`SELECT ${hex} FROM ingest_traces WHERE org_id = $1`, [orgId]);
  expect(traces.rows.map((row) => row.trace_id)).toEqual([kept]);
  const deleted = await platform.pool.query('SELECT trace_id FROM deleted_traces WHERE org_id = $1', [orgId]);
  expect(deleted.rows.map((row) => row.trace_id)).toEqual([kept]);
  expect(expired).not.toBe(kept);
});
