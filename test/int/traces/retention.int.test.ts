import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropExpiredSpanPartitions } from '../../../jobs/span-retention.ts';
import { startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import {
  agentTrace,
  get,
  type OrgWithKey,
  orgWithKey,
  publish,
  span,
  spansReceived,
  untilTraceCount,
} from './fixtures.ts';

// 001, Limits: spans are kept 30 days from the moment the trace's first span was received, and
// spans arriving later go with the trace. Old receipts are published as the ingest would publish
// them, then whole partitions are dropped.

const dayMs = 24 * 3600 * 1000;
const yyyymmdd = (time: Date) => time.toISOString().slice(0, 10).replaceAll('-', '');

let platform: TestPlatform;
let org: OrgWithKey;
beforeAll(async () => {
  platform = await startTestPlatform();
  org = await orgWithKey(platform);
});
afterAll(() => platform.stop());

/** A trace first received at `receivedAt`, plus a span of it that arrived a day later. */
async function traceReceivedAt(receivedAt: Date) {
  const trace = agentTrace(receivedAt);
  const later = span(trace.traceId, { parentSpanId: trace.root.spanId, name: 'late span' });
  await publish(platform, [
    spansReceived(org.orgId, trace.traceId, trace.spans, receivedAt),
    spansReceived(org.orgId, trace.traceId, [later], receivedAt),
  ]);
  return trace;
}

describe('span retention', () => {
  it('drops the partitions of traces first received more than 30 days ago, late spans included', async () => {
    const now = new Date();
    const old = await traceReceivedAt(new Date(now.getTime() - 32 * dayMs));
    const recent = await traceReceivedAt(new Date(now.getTime() - 29 * dayMs));
    const fresh = await traceReceivedAt(now);
    await untilTraceCount(platform, org.key, 3);

    const dropped = await dropExpiredSpanPartitions(platform.clickhouse, now);
    expect(dropped).toContain(yyyymmdd(new Date(now.getTime() - 32 * dayMs)));
    expect(dropped).not.toContain(yyyymmdd(new Date(now.getTime() - 29 * dayMs)));
    expect(dropped).not.toContain(yyyymmdd(now));

    const list = await untilTraceCount(platform, org.key, 2);
    expect(list.data.map((item) => item.trace_id).sort()).toEqual([recent.traceId, fresh.traceId].sort());
    expect(list.data.every((item) => item.span_count === 5)).toBe(true);
    expect((await get(platform, org.key, `/api/traces/${old.traceId}`)).status).toBe(404);
    expect((await get(platform, org.key, `/api/traces/${old.traceId}/outline`)).status).toBe(404);
    // Idempotent: nothing left to drop for that day.
    expect(await dropExpiredSpanPartitions(platform.clickhouse, now)).not.toContain(
      yyyymmdd(new Date(now.getTime() - 32 * dayMs)),
    );
  });

  it('runs as `npx tsx jobs/retention.ts`', async () => {
    const old = await traceReceivedAt(new Date(Date.now() - 45 * dayMs));
    await untilTraceCount(platform, org.key, 3);
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'jobs/retention.ts'], {
      env: { ...process.env, ORRERY_LOG_LEVEL: 'info' },
      timeout: 60_000,
    });
    const done = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
    expect(done.msg).toBe('retention done');
    expect(done.droppedPartitions.length).toBeGreaterThan(0);
    expect((await get(platform, org.key, `/api/traces/${old.traceId}`)).status).toBe(404);
  });
});
