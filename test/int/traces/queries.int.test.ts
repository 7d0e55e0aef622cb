import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceItem, traceModels } from '../../../api/queries/answers.ts';
import { summarizeTrace } from '../../../domain/tracing/trace-summary.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
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
  type TraceListBody,
  untilTraceCount,
} from './fixtures.ts';

// GET /api/traces, /api/traces/:traceId and /api/traces/:traceId/spans/:spanId against the real
// stack: events published on orrery.spans.v1, projected by the consumers, read through the API.

let platform: TestPlatform;
let org: OrgWithKey;
let agent: ReturnType<typeof agentTrace>;
// A trace whose spans come in three events: children first (two starting together, the first
// sent has the larger span id), the root last, with an empty service name.
const late = { traceId: '', spans: [] as ReturnType<typeof span>[] };
// A trace whose root never arrives.
const orphans = { traceId: '', spans: [] as ReturnType<typeof span>[] };

beforeAll(async () => {
  platform = await startTestPlatform();
  org = await orgWithKey(platform);
  agent = agentTrace(dayAt(2, 10));

  late.traceId = newTraceId();
  const t = nanos(dayAt(2, 11));
  const first = span(late.traceId, {
    spanId: 'ffffffffffffff01',
    parentSpanId: 'aaaaaaaaaaaaaaaa',
    name: 'embed query',
    kind: 'generation',
    model: 'text-embedding-3-small',
    inputTokens: 12,
    startTimeUnixNano: t + 5n,
    sessionId: 's-first',
    environment: 'staging',
  });
  const second = span(late.traceId, {
    spanId: '0000000000000001',
    parentSpanId: 'aaaaaaaaaaaaaaaa',
    name: 'search docs',
    kind: 'retrieval',
    startTimeUnixNano: t + 5n,
    sessionId: 's-second',
    userId: 'u-second',
  });
  const third = span(late.traceId, {
    parentSpanId: 'aaaaaaaaaaaaaaaa',
    name: 'answer',
    kind: 'generation',
    model: 'claude-sonnet-4',
    inputTokens: 300,
    outputTokens: 40,
    startTimeUnixNano: t + 9n,
    sessionId: 's-third',
  });
  const root = span(late.traceId, {
    spanId: 'aaaaaaaaaaaaaaaa',
    name: 'RAG pipeline',
    kind: 'agent',
    startTimeUnixNano: t + 7n,
    endTimeUnixNano: t + 10_000_000_000n,
    serviceName: '',
  });
  late.spans = [first, second, third, root];

  orphans.traceId = newTraceId();
  orphans.spans = [
    span(orphans.traceId, {
      parentSpanId: '1111111111111111',
      name: 'lonely tool',
      kind: 'tool',
      startTimeUnixNano: nanos(dayAt(2, 9)),
    }),
  ];

  await publish(platform, [
    spansReceived(org.orgId, agent.traceId, agent.spans),
    spansReceived(org.orgId, late.traceId, [first, second]),
    spansReceived(org.orgId, late.traceId, [third]),
    spansReceived(org.orgId, late.traceId, [root]),
    spansReceived(org.orgId, orphans.traceId, orphans.spans),
  ]);
  await untilTraceCount(platform, org.key, 3);
  // The late trace's root is in the last event; wait until it is in.
  await eventually(async () => {
    const { body } = await get<{ data: { span_count: number } }>(
      platform,
      org.key,
      `/api/traces/${late.traceId}`,
    );
    return body.data?.span_count === 4 ? true : undefined;
  });
});
afterAll(() => platform.stop());

const listed = async (query = '') =>
  (await get<TraceListBody>(platform, org.key, `/api/traces?limit=100${query}`)).body.data;

describe('the trace list', () => {
  it('gives each trace its totals: tokens over generations only, values from root or earliest span', async () => {
    const item = (await listed()).find((trace) => trace.trace_id === agent.traceId);
    const start = dayAt(2, 10);
    expect(item).toEqual({
      trace_id: agent.traceId,
      root_span_name: 'support-agent',
      start_time: start.toISOString(),
      end_time: new Date(start.getTime() + 4000).toISOString(),
      start_time_unix_nano: nanos(start).toString(),
      end_time_unix_nano: (nanos(start) + 4_000_000_000n).toString(),
      duration_ms: 4000,
      span_count: 4,
      error_count: 1,
      input_tokens: 1500,
      output_tokens: 300,
      total_cost_usd: 0.0045,
      session_id: 'session-1',
      user_id: 'user-42',
      service: 'support-bot',
      environment: 'production',
      models: ['gpt-4o', 'gpt-4o-2024-08-06'],
    });
  });

  it('answers as summarizeTrace does on the published spans, in list and detail alike', async () => {
    const items = await listed();
    for (const trace of [agent, late, orphans]) {
      const expected = traceItem(summarizeTrace(trace.spans), traceModels(trace.spans));
      expect(items.find((item) => item.trace_id === trace.traceId)).toEqual(expected);
      const { spans: _tree, ...detail } = (
        await get<{ data: Record<string, unknown> }>(platform, org.key, `/api/traces/${trace.traceId}`)
      ).body.data;
      expect(detail).toEqual(expected);
    }
    const lateItem = items.find((item) => item.trace_id === late.traceId);
    // Ties on start go to the span sent first; the root's empty service is a value, not absent.
    expect(lateItem).toMatchObject({
      session_id: 's-first',
      user_id: 'u-second',
      service: '',
      input_tokens: 312,
    });
    expect(items.find((item) => item.trace_id === orphans.traceId)?.root_span_name).toBeNull();
  });

  it('is newest first', async () => {
    expect((await listed()).map((item) => item.trace_id)).toEqual([
      late.traceId,
      agent.traceId,
      orphans.traceId,
    ]);
  });

  it.each([
    ['session_id=session-1', ['agent']],
    ['session_id=s-second', []],
    ['user_id=u-second', ['late']],
    ['service=support-bot', ['agent']],
    ['service=', 'invalid'],
    ['environment=staging', ['late']],
    ['model=gpt-4o-2024-08-06', ['agent']],
    ['model=claude-sonnet-4', ['late']],
    ['kind=tool', ['agent', 'orphans']],
    ['kind=retrieval', ['late']],
    ['name=TRACK_parcel', ['agent']],
    ['name=pipeline', ['late']],
    [`from=${dayAt(2, 10).toISOString()}&to=${dayAt(2, 10, 1).toISOString()}`, ['agent']],
    [`from=${dayAt(2, 10, 1).toISOString()}`, ['late']],
    [`to=${dayAt(2, 10).toISOString()}`, ['orphans']],
    ['kind=agent&environment=production&model=gpt-4o', ['agent']],
  ])('filters on %s', async (query, expected) => {
    const names = { [agent.traceId]: 'agent', [late.traceId]: 'late', [orphans.traceId]: 'orphans' };
    const response = await get<TraceListBody>(platform, org.key, `/api/traces?${query}`);
    if (expected === 'invalid') {
      expect(response.status).toBe(422);
      return;
    }
    expect(response.body.data.map((item) => names[item.trace_id]).sort()).toEqual([...expected].sort());
  });
});

/** A span node as the API answers it, children of the same shape. */
type Node = Record<string, unknown> & { children: Node[] };

describe('one trace', () => {
  it('nests spans under their parents, orders siblings by start, and leaves bodies out', async () => {
    const { status, body } = await get<{ data: { spans: Record<string, unknown>[] } }>(
      platform,
      org.key,
      `/api/traces/${agent.traceId}`,
    );
    expect(status).toBe(200);
    const [root, ...others] = body.data.spans;
    expect(others).toEqual([]);
    expect(root).toMatchObject({ span_id: agent.root.spanId, parent_span_id: null, kind: 'agent' });
    const children = root?.children as Record<string, unknown>[];
    expect(children.map((child) => [child.name, child.kind, child.children])).toEqual([
      ['chat gpt-4o', 'generation', []],
      ['track_parcel', 'tool', []],
      ['chat gpt-4o', 'generation', []],
    ]);
    expect(children[0]).toMatchObject({
      parent_span_id: agent.root.spanId,
      input_tokens: 1000,
      output_tokens: 200,
      input_truncated: true,
      redacted_count: 2,
      duration_ms: 1200,
    });
    expect(children[1]).toMatchObject({ status_code: 2, status_message: 'carrier API timed out once' });
    for (const key of ['input', 'output', 'attributes', 'events', 'links'])
      expect(root).not.toHaveProperty(key);
  });

  it('in outline: the same totals and tree, each node with what the trace view draws', async () => {
    const whole = await get<{ data: Record<string, unknown> & { spans: Node[] } }>(
      platform,
      org.key,
      `/api/traces/${agent.traceId}`,
    );
    const outline = await get<{ data: Record<string, unknown> & { spans: Node[] } }>(
      platform,
      org.key,
      `/api/traces/${agent.traceId}/outline`,
    );
    expect(outline.status).toBe(200);
    const { spans: wholeSpans, ...wholeTotals } = whole.body.data;
    const { spans: outlineSpans, ...outlineTotals } = outline.body.data;
    expect(outlineTotals).toEqual(wholeTotals);
    const outlineOf = (node: Node): Node => ({
      span_id: node.span_id,
      name: node.name,
      kind: node.kind,
      start_time_unix_nano: node.start_time_unix_nano,
      end_time_unix_nano: node.end_time_unix_nano,
      duration_ms: node.duration_ms,
      status_code: node.status_code,
      model: node.model,
      children: node.children.map(outlineOf),
    });
    expect(outlineSpans).toEqual(wholeSpans.map(outlineOf));
    expect(outlineSpans[0]?.children.map((child) => child.model)).toEqual([
      'gpt-4o-2024-08-06',
      null,
      'gpt-4o-2024-08-06',
    ]);
    const unknown = await get(platform, org.key, `/api/traces/${'0'.repeat(32)}/outline`);
    expect(unknown.status).toBe(404);
  });

  it('puts spans whose parent is missing at the top level', async () => {
    const { body } = await get<{ data: { spans: { span_id: string; parent_span_id: string }[] } }>(
      platform,
      org.key,
      `/api/traces/${orphans.traceId}`,
    );
    expect(body.data.spans.map((node) => [node.span_id, node.parent_span_id])).toEqual([
      [orphans.spans[0]!.spanId, '1111111111111111'],
    ]);
  });
});

describe('one span', () => {
  it('has everything, input and output back as JSON', async () => {
    const { status, body } = await get<{ data: Record<string, unknown> }>(
      platform,
      org.key,
      `/api/traces/${agent.traceId}/spans/${agent.firstCall.spanId}`,
    );
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      trace_id: agent.traceId,
      span_id: agent.firstCall.spanId,
      parent_span_id: agent.root.spanId,
      kind: 'generation',
      model: 'gpt-4o-2024-08-06',
      input: JSON.parse(agent.firstCall.input!),
      output: JSON.parse(agent.firstCall.output!),
      input_truncated: true,
      output_truncated: false,
      redacted_count: 2,
      attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.temperature': 0.2 },
      events: JSON.parse(agent.firstCall.events),
      links: JSON.parse(agent.firstCall.links),
      resource_attributes: { 'service.name': 'support-bot', 'deployment.environment': 'production' },
      scope_name: 'test-instrumentation',
      scope_version: '1.0.0',
      session_id: 'session-1',
      start_time_unix_nano: agent.firstCall.startTimeUnixNano.toString(),
    });
    expect(Date.now() - Date.parse(body.data.trace_first_received_at as string)).toBeLessThan(10 * 60_000);
  });

  it('gives null input and output when the span had none', async () => {
    const { body } = await get<{ data: Record<string, unknown> }>(
      platform,
      org.key,
      `/api/traces/${late.traceId}/spans/0000000000000001`,
    );
    expect(body.data).toMatchObject({ input: null, output: null, model: null, input_tokens: null });
  });

  it('is 404 not_found for an unknown span of a known trace', async () => {
    const { status, body } = await get(
      platform,
      org.key,
      `/api/traces/${agent.traceId}/spans/00000000000000ff`,
    );
    expect(status).toBe(404);
    expect(body).toMatchObject({ error: { code: 'not_found' } });
  });
});
