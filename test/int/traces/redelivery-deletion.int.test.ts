import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idBytes, sql } from '../../../platform/clickhouse.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import {
  agentTrace,
  dayAt,
  get,
  orgWithKey,
  publish,
  span,
  spansReceived,
  type TraceListBody,
  traceDeleted,
  untilTraceCount,
} from './fixtures.ts';

// At-least-once delivery and deletion, end to end: the same SpansReceived twice changes no answer;
// a TraceDeleted removes the trace from every answer, in the topic's order.

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform.stop());

const analytics = ['usage', 'latency', 'errors'].map((name) => `/api/analytics/${name}`);

/** Every answer about the org and the trace, as the API gives them. */
async function everyAnswer(key: string, trace: ReturnType<typeof agentTrace>) {
  const urls = [
    '/api/traces',
    `/api/traces/${trace.traceId}`,
    `/api/traces/${trace.traceId}/outline`,
    ...trace.spans.map((one) => `/api/traces/${trace.traceId}/spans/${one.spanId}`),
    ...analytics.map((url) => `${url}?from=${dayAt(5, 0).toISOString()}&to=${dayAt(0, 0).toISOString()}`),
  ];
  return Promise.all(urls.map(async (url) => ({ url, ...(await get(platform, key, url)) })));
}

async function rawRows(orgId: string, traceId: string) {
  const result = await platform.clickhouse.query({
    query: sql`SELECT count() AS n, max(received_offset) AS last FROM spans
      WHERE org_id = ${orgId} AND trace_id = ${idBytes(traceId)}`.text,
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ n: string; last: string }>();
  return { count: Number(row?.n), lastOffset: BigInt(row?.last ?? 0) };
}

async function pendingMutations(): Promise<number> {
  const result = await platform.clickhouse.query({
    query:
      "SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND table = 'spans' AND is_done = 0",
    format: 'JSONEachRow',
  });
  return Number((await result.json<{ n: string }>())[0]?.n);
}

describe('redelivery', () => {
  it('publishing the same event twice changes no answer', async () => {
    const org = await orgWithKey(platform);
    const trace = agentTrace(dayAt(2, 15));
    const event = spansReceived(org.orgId, trace.traceId, trace.spans);
    await publish(platform, [event]);
    await untilTraceCount(platform, org.key, 1);
    const before = await everyAnswer(org.key, trace);
    expect(before.every((answer) => answer.status === 200)).toBe(true);
    const first = await rawRows(org.orgId, trace.traceId);
    expect(first.count).toBe(4);

    await publish(platform, [event]);
    // The copy is in once rows from its (later) offset are stored, merged or not.
    await eventually(async () =>
      (await rawRows(org.orgId, trace.traceId)).lastOffset > first.lastOffset ? true : undefined,
    );
    expect(await everyAnswer(org.key, trace)).toEqual(before);
  });
});

describe('deletion', () => {
  it('removes the trace from the list, its detail, its spans and the analytics', async () => {
    const org = await orgWithKey(platform);
    const kept = agentTrace(dayAt(2, 8));
    const doomed = agentTrace(dayAt(2, 9));
    await publish(platform, [
      spansReceived(org.orgId, kept.traceId, kept.spans),
      spansReceived(org.orgId, doomed.traceId, doomed.spans),
    ]);
    await untilTraceCount(platform, org.key, 2);
    const usageUrl = `/api/analytics/usage?from=${dayAt(5, 0).toISOString()}`;
    const usage = (await get<{ data: { model: string; spans: number }[] }>(platform, org.key, usageUrl)).body;
    expect(usage.data.find((row) => row.model === 'gpt-4o-2024-08-06')?.spans).toBe(4);

    await publish(platform, [traceDeleted(org.orgId, doomed.traceId)]);
    // A deletion is one background mutation per table (18.16), done in any order: the list may
    // lose the trace before its detail does. Every read below is checked once the detail and the
    // analytics, the tables the list does not read, show it gone.
    await eventually(
      async () => {
        const detail = await get(platform, org.key, `/api/traces/${doomed.traceId}`);
        const now = (await get<{ data: { model: string; spans: number }[] }>(platform, org.key, usageUrl))
          .body;
        const spans = now.data.find((row) => row.model === 'gpt-4o-2024-08-06')?.spans;
        return detail.status === 404 && spans === 2 ? true : undefined;
      },
      30_000,
      'the deleted trace gone from its detail and the analytics',
    );
    const list = await untilTraceCount(platform, org.key, 1);
    expect(list.data.map((item) => item.trace_id)).toEqual([kept.traceId]);
    expect((await get(platform, org.key, `/api/traces/${doomed.traceId}`)).status).toBe(404);
    expect((await get(platform, org.key, `/api/traces/${doomed.traceId}/outline`)).status).toBe(404);
    for (const one of doomed.spans)
      expect((await get(platform, org.key, `/api/traces/${doomed.traceId}/spans/${one.spanId}`)).status).toBe(
        404,
      );
    const after = (await get<{ data: { model: string; spans: number }[] }>(platform, org.key, usageUrl)).body;
    expect(after.data.find((row) => row.model === 'gpt-4o-2024-08-06')?.spans).toBe(2);
    const latency = await get<{ data: { kind: string; spans: number }[] }>(
      platform,
      org.key,
      `/api/analytics/latency?from=${dayAt(5, 0).toISOString()}`,
    );
    expect(latency.body.data.map((row) => [row.kind, row.spans])).toEqual([
      ['generation', 2],
      ['tool', 1],
      ['agent', 1],
    ]);
    expect((await rawRows(org.orgId, doomed.traceId)).count).toBe(0);
    expect((await get(platform, org.key, `/api/traces/${kept.traceId}`)).status).toBe(200);
  });

  it('keeps the topic order: spans before a deletion go, spans published after it stay', async () => {
    const org = await orgWithKey(platform);
    const trace = agentTrace(dayAt(2, 20));
    const after = span(trace.traceId, {
      name: 'sent again later',
      startTimeUnixNano: trace.root.startTimeUnixNano,
    });
    // One publish: one Kafka batch, projected as insert, delete, insert.
    await publish(platform, [
      spansReceived(org.orgId, trace.traceId, trace.spans),
      traceDeleted(org.orgId, trace.traceId),
      spansReceived(org.orgId, trace.traceId, [after]),
    ]);
    const names = async () => {
      const { status, body } = await get<{ data: { spans: { name: string }[] } }>(
        platform,
        org.key,
        `/api/traces/${trace.traceId}`,
      );
      return status === 200 ? body.data.spans.map((node) => node.name) : [];
    };
    await eventually(async () => ((await names()).join() === 'sent again later' ? true : undefined), 30_000);
    await eventually(async () => ((await pendingMutations()) === 0 ? true : undefined), 30_000);
    expect(await names()).toEqual(['sent again later']);
    const { body } = await get<TraceListBody>(platform, org.key, '/api/traces');
    expect(body.data).toMatchObject([{ trace_id: trace.traceId, span_count: 1, input_tokens: 0 }]);
  });
});
