import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceItem, traceModels } from '../../../api/queries/answers.ts';
import { admissionFates } from '../../../consumers/projections.ts';
import type { SpanEvent } from '../../../domain/tracing/events.ts';
import { summarizeTrace } from '../../../domain/tracing/trace-summary.ts';
import { compactSpanFacts } from '../../../jobs/span-facts-compaction.ts';
import { identifier, sql } from '../../../platform/clickhouse.ts';
import { spansClickHouseProjection } from '../../../projections/spans-clickhouse.ts';
import { startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { spanRecord } from '../../harness/span-records.ts';
import {
  agentTrace,
  dayAt,
  get,
  type OrgWithKey,
  orgWithKey,
  span,
  spansReceived,
  type TraceListBody,
  traceDeleted,
} from './fixtures.ts';

// The trace list's `trace_fragments` and the analytics' `span_facts` (migrations 0003 and 0004),
// written with each insert into `spans` (a fragment per trace of each event, a fact per span), read
// without FINAL. Each insert is one projected batch here, so a test decides which fragments a
// trace has: a trace in several inserts, a batch delivered twice, a span published again in a new
// event, a trace whose late spans started long after its root. Every answer must be the one its
// distinct spans give.

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform.stop());

let offset = 1_000_000;
/** Projects `events` as one batch (one insert, one fragment per trace of each event), at the next offsets. */
async function project(events: SpanEvent[], offsets?: number[]) {
  const batch = events.map((event, index) => ({
    topic: 'orrery.spans.v1',
    partition: 0,
    offset: String(offsets?.[index] ?? offset++),
    key: null,
    event: spanRecord(event),
  }));
  await spansClickHouseProjection(platform.clickhouse, admissionFates(platform.pool)).project(batch, 'test');
}

const range = `from=${dayAt(5, 0).toISOString()}&to=${dayAt(0, 0).toISOString()}`;
const analytics = ['usage', 'latency', 'errors'].map((name) => `/api/analytics/${name}?${range}`);

async function analyticsOf(org: OrgWithKey) {
  return Promise.all(analytics.map(async (url) => (await get(platform, org.key, url)).body));
}

async function listed(org: OrgWithKey, query = '') {
  const { status, body } = await get<TraceListBody>(platform, org.key, `/api/traces?limit=100${query}`);
  expect(status).toBe(200);
  return body;
}

/** Every page of the list, `limit` traces at a time. */
async function walk(org: OrgWithKey, query: string, limit: number) {
  const seen: TraceListBody['data'] = [];
  let cursor: string | null = null;
  do {
    const after: string = cursor ? `&cursor=${cursor}` : '';
    const { body } = await get<TraceListBody>(
      platform,
      org.key,
      `/api/traces?limit=${limit}${query}${after}`,
    );
    seen.push(...body.data);
    cursor = body.next_cursor;
  } while (cursor);
  return seen;
}

async function rowsOf(table: 'trace_fragments' | 'span_facts', orgId: string) {
  const result = await platform.clickhouse.query({
    query: sql`SELECT count() AS n FROM ${identifier(table)} WHERE org_id = ${orgId}`.text,
    format: 'JSONEachRow',
  });
  return Number((await result.json<{ n: string }>())[0]?.n);
}

/** Every receipt hour of span_facts merged into one part, as the jobs process does. */
const settle = () => compactSpanFacts(platform.clickhouse, new Date(), { quietMs: 0, maxUnsettledMs: 0 });

describe('a trace delivered in pieces, twice, and in part again', () => {
  it('reads as its distinct spans in the list, the detail and the analytics, settled or not', async () => {
    const org = await orgWithKey(platform);
    const control = await orgWithKey(platform);
    const trace = agentTrace(dayAt(2, 10));
    const [root, firstCall, tool, secondCall] = trace.spans as [
      (typeof trace.spans)[0],
      (typeof trace.spans)[0],
      (typeof trace.spans)[0],
      (typeof trace.spans)[0],
    ];
    const pieces = spansReceived(org.orgId, trace.traceId, [firstCall, tool]);
    await project([spansReceived(org.orgId, trace.traceId, [secondCall])]);
    await project([pieces]);
    // The same batch again, at the same offset: a redelivery.
    await project([pieces], [offset - 1]);
    await project([spansReceived(org.orgId, trace.traceId, [root])]);
    // The first call published again in a new event (its recording in the ledger failed).
    await project([spansReceived(org.orgId, trace.traceId, [firstCall])]);
    // The control org gets the same spans once, in one insert.
    await project([spansReceived(control.orgId, trace.traceId, trace.spans)]);

    const expected = traceItem(summarizeTrace(trace.spans), traceModels(trace.spans));
    expect(expected).toMatchObject({ span_count: 4, error_count: 1, input_tokens: 1500, output_tokens: 300 });
    expect((await listed(org)).data).toEqual([expected]);
    const { spans: tree, ...detail } = (
      await get<{ data: { spans: unknown[] } }>(platform, org.key, `/api/traces/${trace.traceId}`)
    ).body.data;
    expect(detail).toEqual(expected);
    expect(tree).toHaveLength(1);
    expect(await rowsOf('trace_fragments', org.orgId)).toBe(5);

    const once = await analyticsOf(control);
    expect(await analyticsOf(org)).toEqual(once);
    await settle();
    expect(await analyticsOf(org)).toEqual(once);
    expect((await listed(org)).data).toEqual([expected]);
  });

  it('takes each trace value from the span of highest precedence, whichever insert brought it', async () => {
    const org = await orgWithKey(platform);
    const trace = agentTrace(dayAt(2, 11), { sessionId: 'child-session' });
    const root = { ...trace.root, sessionId: 'root-session', serviceName: null };
    await project([spansReceived(org.orgId, trace.traceId, trace.spans.slice(1))]);
    await project([spansReceived(org.orgId, trace.traceId, [root])]);
    const item = (await listed(org)).data[0];
    expect(item).toMatchObject({
      session_id: 'root-session',
      service: 'support-bot',
      root_span_name: 'support-agent',
    });
    expect((await listed(org, '&session_id=root-session')).data).toHaveLength(1);
    expect((await listed(org, '&session_id=child-session')).data).toHaveLength(0);
    expect((await listed(org, '&name=TRACK_PARCEL&model=gpt-4o')).data).toHaveLength(1);
  });
});

describe('deletion', () => {
  it('leaves no fragment and no fact of the trace, before or after the facts settle', async () => {
    const org = await orgWithKey(platform);
    const kept = agentTrace(dayAt(2, 12));
    const early = agentTrace(dayAt(2, 13));
    const late = agentTrace(dayAt(2, 14));
    await project([
      spansReceived(org.orgId, kept.traceId, kept.spans),
      spansReceived(org.orgId, early.traceId, early.spans),
    ]);
    await settle();
    await project([spansReceived(org.orgId, late.traceId, late.spans)]);
    await project([traceDeleted(org.orgId, early.traceId), traceDeleted(org.orgId, late.traceId)]);
    expect((await listed(org)).data.map((item) => item.trace_id)).toEqual([kept.traceId]);
    expect(await rowsOf('trace_fragments', org.orgId)).toBe(1);
    expect(await rowsOf('span_facts', org.orgId)).toBe(4);
    const latency = (await analyticsOf(org))[1] as { data: { spans: number }[] };
    expect(latency.data.reduce((total, row) => total + row.spans, 0)).toBe(4);
  });
});

describe('pages read from the newest fragments', () => {
  it('place a trace whose late spans started long after its root at its own start', async () => {
    const org = await orgWithKey(platform);
    const minute = 60_000;
    const base = dayAt(2, 15).getTime();
    const traces = Array.from({ length: 30 }, (_, index) => agentTrace(new Date(base + index * minute)));
    await project(traces.map((trace) => spansReceived(org.orgId, trace.traceId, trace.spans)));
    // A long trace: its root started an hour before all of them, its last call after most of them,
    // and the call arrived in a later insert.
    const long = agentTrace(new Date(base - 60 * minute));
    const lateCall = span(long.traceId, {
      parentSpanId: long.root.spanId,
      name: 'late call',
      kind: 'generation',
      startTimeUnixNano: BigInt(base + 29.5 * minute) * 1_000_000n,
    });
    await project([spansReceived(org.orgId, long.traceId, long.spans)]);
    await project([spansReceived(org.orgId, long.traceId, [lateCall])]);

    const seen = await walk(org, '', 5);
    expect(seen.map((item) => item.trace_id)).toEqual([
      ...traces.map((trace) => trace.traceId).reverse(),
      long.traceId,
    ]);
    const spans = [...long.spans, lateCall];
    expect(seen.at(-1)).toEqual(traceItem(summarizeTrace(spans), traceModels(spans)));
    // Filtered, from and to: the same order.
    const to = new Date(base + 29 * minute).toISOString();
    const filtered = await walk(org, `&model=gpt-4o&to=${to}`, 3);
    expect(filtered.map((item) => item.trace_id)).toEqual(
      traces
        .slice(0, 29)
        .map((trace) => trace.traceId)
        .reverse()
        .concat(long.traceId),
    );
  });
});
