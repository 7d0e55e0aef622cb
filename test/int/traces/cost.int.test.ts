import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiKey, enableTracing } from '../../../api/admin/commands.ts';
import type { KeyValue, OtlpSpan } from '../../../domain/tracing/otlp.ts';
import { startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { exportSpans, llmSpan, spanId, traceId, tracingOrg } from '../../harness/tracing.ts';
import { asPerson, signUp } from '../people/given.ts';
import { get, untilTraceCount } from './fixtures.ts';

// Cost from an OTLP export to the answers (issue 50, item 1): each generation priced when it is
// received at its org's prices (the defaults, or the org's own), `cost_usd` on the span,
// `total_cost_usd` on the trace and cost by model and day in the analytics; a model without a
// price has no cost, and a price set later applies only to spans received after it.

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform.stop());

const int = (key: string, value: number): KeyValue => ({ key, value: { kind: 'int', value: BigInt(value) } });
const text = (key: string, value: string): KeyValue => ({ key, value: { kind: 'string', value } });

/** A chat generation as the GenAI conventions send one, with cached input and reasoning counted. */
function generation(trace: string, parent: string, model: string, start: bigint): OtlpSpan {
  return llmSpan({
    traceId: trace,
    parentSpanId: parent,
    name: `chat ${model}`,
    startTimeUnixNano: start,
    endTimeUnixNano: start + 1_000_000_000n,
    attributes: [
      text('gen_ai.operation.name', 'chat'),
      text('gen_ai.request.model', model),
      int('gen_ai.usage.input_tokens', 1000),
      int('gen_ai.usage.cache_read.input_tokens', 400),
      int('gen_ai.usage.output_tokens', 200),
      int('gen_ai.usage.reasoning.output_tokens', 50),
    ],
  });
}

/** An agent turn: its root repeats its calls' usage (never priced), a priced call, an unpriced one. */
function agentTurn(
  trace: string,
  start: bigint,
): { spans: OtlpSpan[]; priced: OtlpSpan; unpriced: OtlpSpan } {
  const rootId = spanId();
  const root = llmSpan({
    traceId: trace,
    spanId: rootId,
    name: 'invoke_agent support',
    startTimeUnixNano: start,
    endTimeUnixNano: start + 3_000_000_000n,
    attributes: [
      text('gen_ai.operation.name', 'invoke_agent'),
      text('gen_ai.request.model', 'gpt-4o-mini'),
      int('gen_ai.usage.input_tokens', 2000),
      int('gen_ai.usage.output_tokens', 400),
    ],
  });
  const priced = generation(trace, rootId, 'gpt-4o-mini-2024-07-18', start + 1_000_000n);
  const unpriced = generation(trace, rootId, 'house-model-1', start + 2_000_000n);
  return { spans: [root, priced, unpriced], priced, unpriced };
}

interface SpanBody {
  data: {
    kind: string;
    cost_usd: number | null;
    cached_input_tokens: number | null;
    reasoning_tokens: number | null;
  };
}

it('prices each generation at the default list price, totals the trace, and leaves an unpriced model without cost', async () => {
  const org = await tracingOrg(platform);
  const trace = traceId();
  const turn = agentTurn(trace, BigInt(Date.now() - 60_000) * 1_000_000n);
  expect((await exportSpans(platform.api, { spans: turn.spans, key: org.key })).status).toBe(200);

  // gpt-4o-mini: 0.15 USD per million input tokens, 0.075 cached, 0.6 output (reasoning as output):
  // 600 × 0.15 + 400 × 0.075 + 200 × 0.6 = 240 micro-dollars.
  const list = await untilTraceCount(platform, org.key, 1);
  expect(list.data[0]).toMatchObject({ trace_id: trace, total_cost_usd: 0.00024 });

  const priced = await get<SpanBody>(platform, org.key, `/api/traces/${trace}/spans/${turn.priced.spanId}`);
  expect(priced.body.data).toMatchObject({
    kind: 'generation',
    cost_usd: 0.00024,
    cached_input_tokens: 400,
    reasoning_tokens: 50,
  });
  const unpriced = await get<SpanBody>(
    platform,
    org.key,
    `/api/traces/${trace}/spans/${turn.unpriced.spanId}`,
  );
  expect(unpriced.body.data.cost_usd).toBeNull();

  const usage = await get<{ data: { model: string; cost_usd: number | null }[] }>(
    platform,
    org.key,
    '/api/analytics/usage',
  );
  expect(Object.fromEntries(usage.body.data.map((row) => [row.model, row.cost_usd]))).toEqual({
    'gpt-4o-mini': null,
    'gpt-4o-mini-2024-07-18': 0.00024,
    'house-model-1': null,
  });
});

it("applies the org's own price to spans received after it is set, and leaves those before as priced", async () => {
  // Prices are set by the org's members, as its keys are made: with a session (api/prices/plugin.ts).
  const person = await signUp(platform.api);
  const orgId = person.orgs[0]!.id;
  await enableTracing(platform.admin, orgId);
  const org = await createApiKey(platform.admin, orgId, ['traces:write']);
  const before = traceId();
  const start = BigInt(Date.now() - 60_000) * 1_000_000n;
  await exportSpans(platform.api, { spans: agentTurn(before, start).spans, key: org.key });
  await untilTraceCount(platform, org.key, 1);

  const set = await asPerson(platform.api, person, 'PUT', '/api/prices/house-model-1', {
    body: { input: 1, output: 2 },
  });
  expect(set.statusCode, set.body).toBe(200);
  const after = traceId();
  expect(
    (
      await exportSpans(platform.api, {
        spans: agentTurn(after, start + 10_000_000_000n).spans,
        key: org.key,
      })
    ).status,
  ).toBe(200);

  // house-model-1 at 1 USD input (cached priced as input) and 2 USD output per million:
  // 1000 × 1 + 200 × 2 = 1,400 micro-dollars, beside gpt-4o-mini's 240.
  const list = await untilTraceCount(platform, org.key, 2);
  const totals = Object.fromEntries(list.data.map((item) => [item.trace_id, item.total_cost_usd]));
  expect(totals).toEqual({ [before]: 0.00024, [after]: 0.00164 });
});
