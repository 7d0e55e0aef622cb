import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { exportSpans, llmSpan, spanId, traceId, tracingOrg } from '../../harness/tracing.ts';
import { get, type TraceListBody, untilTraceCount } from './fixtures.ts';

// The whole path once: an OTLP export through the ingest, read back through the query surface,
// then deleted with DELETE /api/traces/:traceId and gone from every answer.

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform.stop());

it('reads back an exported trace, then loses it once deleted', async () => {
  const org = await tracingOrg(platform);
  const trace = traceId();
  const rootId = spanId();
  const start = BigInt(Date.now() - 60_000) * 1_000_000n;
  const root = llmSpan({
    traceId: trace,
    spanId: rootId,
    name: 'invoke_agent support',
    startTimeUnixNano: start,
    endTimeUnixNano: start + 3_000_000_000n,
    attributes: [
      { key: 'gen_ai.operation.name', value: { kind: 'string', value: 'invoke_agent' } },
      { key: 'gen_ai.usage.input_tokens', value: { kind: 'int', value: 42n } },
      { key: 'gen_ai.usage.output_tokens', value: { kind: 'int', value: 7n } },
    ],
  });
  const call = llmSpan({
    traceId: trace,
    parentSpanId: rootId,
    name: 'chat gpt-4o',
    startTimeUnixNano: start + 1_000_000n,
    endTimeUnixNano: start + 2_000_000_000n,
    attributes: [
      ...llmSpan().attributes,
      { key: 'session.id', value: { kind: 'string', value: 'conversation-7' } },
      {
        key: 'gen_ai.input.messages',
        value: { kind: 'string', value: '[{"role":"user","parts":[{"type":"text","content":"hi"}]}]' },
      },
    ],
  });
  const exported = await exportSpans(platform.api, { spans: [root, call], key: org.key });
  expect(exported.status).toBe(200);

  // One export, one event: both spans land in the same insert.
  const list = await untilTraceCount(platform, org.key, 1);
  expect(list.data[0]).toMatchObject({
    trace_id: trace,
    span_count: 2,
    root_span_name: 'invoke_agent support',
    input_tokens: 42,
    output_tokens: 7,
    session_id: 'conversation-7',
    service: 'chatbot',
    models: ['gpt-4o'],
  });
  const one = await get<{ data: { kind: string; input: unknown } }>(
    platform,
    org.key,
    `/api/traces/${trace}/spans/${call.spanId}`,
  );
  expect(one.body.data.kind).toBe('generation');
  expect(one.body.data.input).toEqual({
    messages: [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }],
  });

  const deleted = await platform.api.inject({
    method: 'DELETE',
    url: `/api/traces/${trace}`,
    headers: { authorization: `Bearer ${org.key}` },
  });
  expect(deleted.statusCode).toBe(200);
  // The deletion is one ClickHouse mutation per table, each finishing on its own in the
  // background: the list may be empty a moment before the trace's spans are gone, so each answer
  // is awaited until it, too, no longer has the trace.
  await untilTraceCount(platform, org.key, 0);
  await eventually(
    async () => ((await get(platform, org.key, `/api/traces/${trace}`)).status === 404 ? true : undefined),
    30_000,
    'the deleted trace to be 404',
  );
  await eventually(
    async () => {
      const usage = await get<{ data: unknown[] }>(platform, org.key, '/api/analytics/usage');
      return usage.body.data.length === 0 ? true : undefined;
    },
    30_000,
    'no usage left of the deleted trace',
  );
  const after = await get<TraceListBody>(platform, org.key, '/api/traces');
  expect(after.body).toEqual({ data: [], next_cursor: null });
});
