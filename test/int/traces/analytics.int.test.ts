import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import {
  agentTrace,
  dayAt,
  get,
  nanos,
  newTraceId,
  type OrgWithKey,
  orgWithKey,
  publish,
  span,
  spansReceived,
  untilTraceCount,
} from './fixtures.ts';

// GET /api/analytics/{usage,latency,errors}: by UTC day of the span's start, within [from, to).

let platform: TestPlatform;
let org: OrgWithKey;
const day = (daysAgo: number) => dayAt(daysAgo, 0).toISOString().slice(0, 10);
const range = () => `from=${dayAt(3, 0).toISOString()}&to=${dayAt(1, 0).toISOString()}`;

beforeAll(async () => {
  platform = await startTestPlatform();
  org = await orgWithKey(platform);
  const first = agentTrace(dayAt(3, 10));
  const second = agentTrace(dayAt(2, 10));
  const ragId = newTraceId();
  const t = nanos(dayAt(2, 12));
  const rag = [
    span(ragId, {
      name: 'embed',
      kind: 'generation',
      model: 'text-embedding-3-small',
      inputTokens: 50,
      startTimeUnixNano: t,
      endTimeUnixNano: t + 100_000_000n,
    }),
    span(ragId, {
      name: 'vector search',
      kind: 'retrieval',
      parentSpanId: 'abababababababab',
      statusCode: 2,
      startTimeUnixNano: t + 100_000_000n,
      endTimeUnixNano: t + 400_000_000n,
    }),
  ];
  // Just outside the range on either side: never counted.
  const before = span(newTraceId(), {
    kind: 'generation',
    model: 'gpt-4o',
    inputTokens: 9,
    startTimeUnixNano: nanos(dayAt(3, 0)) - 1n,
  });
  const after = span(newTraceId(), {
    kind: 'generation',
    model: 'gpt-4o',
    inputTokens: 9,
    startTimeUnixNano: nanos(dayAt(1, 0)),
  });
  await publish(platform, [
    spansReceived(org.orgId, first.traceId, first.spans),
    spansReceived(org.orgId, second.traceId, second.spans),
    spansReceived(org.orgId, ragId, rag),
    spansReceived(org.orgId, before.traceId, [before]),
    spansReceived(org.orgId, after.traceId, [after]),
  ]);
  await untilTraceCount(platform, org.key, 5);
});
afterAll(() => platform.stop());

describe('usage', () => {
  it('counts spans by model and day, and tokens of generation spans only', async () => {
    const { status, body } = await get(platform, org.key, `/api/analytics/usage?${range()}`);
    expect(status).toBe(200);
    expect(body).toEqual({
      from: dayAt(3, 0).toISOString(),
      to: dayAt(1, 0).toISOString(),
      data: [
        // Cost over the generations that have one; none where no span of the model has one.
        { day: day(3), model: 'gpt-4o', spans: 1, input_tokens: 0, output_tokens: 0, cost_usd: null },
        {
          day: day(3),
          model: 'gpt-4o-2024-08-06',
          spans: 2,
          input_tokens: 1500,
          output_tokens: 300,
          cost_usd: 0.0045,
        },
        { day: day(2), model: 'gpt-4o', spans: 1, input_tokens: 0, output_tokens: 0, cost_usd: null },
        {
          day: day(2),
          model: 'gpt-4o-2024-08-06',
          spans: 2,
          input_tokens: 1500,
          output_tokens: 300,
          cost_usd: 0.0045,
        },
        {
          day: day(2),
          model: 'text-embedding-3-small',
          spans: 1,
          input_tokens: 50,
          output_tokens: 0,
          cost_usd: null,
        },
      ],
    });
  });
});

describe('latency', () => {
  it('gives exact p50, p90 and p99 span durations by kind', async () => {
    const { body } = await get<{ data: unknown[] }>(platform, org.key, `/api/analytics/latency?${range()}`);
    // Generation durations: 100, 1200, 1200, 2000, 2000 ms (the value at rank ⌊level × count⌋).
    expect(body.data).toEqual([
      { kind: 'generation', spans: 5, p50_ms: 1200, p90_ms: 2000, p99_ms: 2000 },
      { kind: 'tool', spans: 2, p50_ms: 400, p90_ms: 400, p99_ms: 400 },
      { kind: 'agent', spans: 2, p50_ms: 4000, p90_ms: 4000, p99_ms: 4000 },
      { kind: 'retrieval', spans: 1, p50_ms: 300, p90_ms: 300, p99_ms: 300 },
    ]);
  });
});

describe('errors', () => {
  it('counts spans and error spans (status code 2) by day and kind', async () => {
    const { body } = await get<{ data: unknown[] }>(platform, org.key, `/api/analytics/errors?${range()}`);
    expect(body.data).toEqual([
      { day: day(3), kind: 'generation', spans: 2, errors: 0 },
      { day: day(3), kind: 'tool', spans: 1, errors: 1 },
      { day: day(3), kind: 'agent', spans: 1, errors: 0 },
      { day: day(2), kind: 'generation', spans: 3, errors: 0 },
      { day: day(2), kind: 'tool', spans: 1, errors: 1 },
      { day: day(2), kind: 'agent', spans: 1, errors: 0 },
      { day: day(2), kind: 'retrieval', spans: 1, errors: 1 },
    ]);
  });

  it('defaults to the last 7 days up to now', async () => {
    const { body } = await get<{ from: string; to: string; data: { spans: number }[] }>(
      platform,
      org.key,
      '/api/analytics/errors',
    );
    expect(Date.parse(body.to) - Date.parse(body.from)).toBe(7 * 24 * 3600 * 1000);
    // Everything published is within the last 4 days: both outliers count here.
    expect(body.data.reduce((total, row) => total + row.spans, 0)).toBe(12);
  });
});
