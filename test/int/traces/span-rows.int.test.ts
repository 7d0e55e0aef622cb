import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublishedSpan, ReceivedTrace, SpanEvent } from '../../../domain/tracing/events.ts';
import { type ClickHouseClient, createClickHouse, identifier } from '../../../platform/clickhouse.ts';
import { insertRowBinary, RowBinaryWriter } from '../../../platform/clickhouse-rowbinary.ts';
import { spanColumns, spanRecordOf, writeSpanRows } from '../../../projections/spans-rowbinary.ts';
import { spanEventBytes } from '../../harness/span-records.ts';
import {
  publishedSpan,
  randomSpanId as spanId,
  spansReceivedEvent,
  randomTraceId as traceId,
} from '../../harness/spans.ts';

// The spans projection writes each received span as a RowBinary row transcoded from the event's
// protobuf bytes (projections/spans-rowbinary.ts). ClickHouse itself reads the rows back here, and
// each must hold what the event says, with the domain's defaults (schemas/events/spans-mapping.ts):
// nanoseconds and offsets exact, NULL apart from empty and zero, text with every byte TabSeparated
// would have had to escape, the spans numbered in the order sent across the event's traces.

let clickhouse: ClickHouseClient;
const table = `spans_rows_${randomBytes(4).toString('hex')}`;
beforeAll(async () => {
  clickhouse = createClickHouse();
  await clickhouse.command({ query: `CREATE TABLE ${identifier(table).text} AS spans` });
});
afterAll(async () => {
  await clickhouse.command({ query: `DROP TABLE IF EXISTS ${identifier(table).text}` });
  await clickhouse.close();
});

/** The rows ClickHouse holds for the events' spans, written at the given offsets, in the order written. */
async function stored(events: { value: Buffer; offset: string }[]): Promise<Record<string, unknown>[]> {
  const rows = new RowBinaryWriter();
  for (const { value, offset } of events) {
    const record = spanRecordOf(value);
    if (record?.type !== 'SpansReceived') throw new Error('not received spans');
    writeSpanRows(record, offset, rows);
  }
  await clickhouse.command({ query: `TRUNCATE TABLE ${identifier(table).text}` });
  await insertRowBinary(clickhouse, identifier(table).text, spanColumns, rows.bytes());
  // The ids are stored as their bytes: read back as the hex the events carry, under their names.
  const result = await clickhouse.query({
    query: `SELECT *, lower(hex(trace_id)) AS trace_hex, lower(hex(span_id)) AS span_hex,
        lower(hex(parent_span_id)) AS parent_hex
      FROM ${identifier(table).text} ORDER BY received_offset, received_index`,
    format: 'JSONEachRow',
  });
  const read = await result.json<Record<string, unknown>>();
  return read.map(({ trace_hex, span_hex, parent_hex, ...row }) => ({
    ...row,
    trace_id: trace_hex,
    span_id: span_hex,
    parent_span_id: parent_hex,
  }));
}

const dateTime = (at: Date) => at.toISOString().slice(0, 19).replace('T', ' ');

/** What the domain mapping says a span's row holds, as ClickHouse answers it in JSON. */
function expected(
  event: Extract<SpanEvent, { type: 'SpansReceived' }>,
  trace: ReceivedTrace,
  span: PublishedSpan,
  offset: string,
  index: number,
) {
  return {
    org_id: event.orgId,
    trace_id: trace.traceId,
    span_id: span.spanId,
    trace_first_received_at: dateTime(
      new Date(Math.floor(trace.traceFirstReceivedAt.getTime() / 1000) * 1000),
    ),
    parent_span_id: span.parentSpanId,
    name: span.name,
    kind: span.kind,
    otel_kind: span.otelKind,
    start_time_unix_nano: span.startTimeUnixNano.toString(),
    end_time_unix_nano: span.endTimeUnixNano.toString(),
    status_code: span.statusCode,
    status_message: span.statusMessage,
    model: span.model,
    input_tokens: span.inputTokens === null ? null : String(span.inputTokens),
    output_tokens: span.outputTokens === null ? null : String(span.outputTokens),
    session_id: span.sessionId,
    user_id: span.userId,
    service_name: span.serviceName,
    environment: span.environment,
    input: span.input,
    output: span.output,
    input_truncated: span.inputTruncated ? 1 : 0,
    output_truncated: span.outputTruncated ? 1 : 0,
    redacted_count: span.redactedCount,
    attributes: span.attributes,
    events: span.events,
    links: span.links,
    resource_attributes: span.resourceAttributes,
    scope_name: span.scopeName,
    scope_version: span.scopeVersion,
    size_bytes: String(span.sizeBytes),
    received_offset: offset,
    received_index: index,
    cached_input_tokens: span.cachedInputTokens === null ? null : String(span.cachedInputTokens),
    reasoning_tokens: span.reasoningTokens === null ? null : String(span.reasoningTokens),
    cost_nano_usd: span.costNanoUsd === null ? null : String(span.costNanoUsd),
  };
}

const at = new Date('2026-11-20T10:00:00.750Z');
const received = (traces: ReceivedTrace[]) => spansReceivedEvent('org_a', traces, at);

describe('received spans as RowBinary rows, read back by ClickHouse', () => {
  it('keeps nanoseconds and offsets exact, NULL apart from empty and zero, and numbers spans across traces', async () => {
    const first = {
      traceId: traceId(),
      traceFirstReceivedAt: at,
      spans: [publishedSpan({ spanId: spanId() })],
    };
    const agent = publishedSpan({
      spanId: spanId(),
      parentSpanId: spanId(),
      name: 'agent',
      kind: 'agent',
      otelKind: 2,
      startTimeUnixNano: 1_763_632_800_123_456_789n,
      endTimeUnixNano: 18_446_744_073_709_551_615n,
      statusCode: 2,
      statusMessage: 'boom',
      model: 'gpt-4o',
      inputTokens: 0,
      outputTokens: 4_294_967_297,
      cachedInputTokens: 0,
      reasoningTokens: 4_294_967_296,
      costNanoUsd: 9_007_199_254_740_991,
      input: '{"value":"hi"}',
      inputTruncated: true,
      userId: 'u',
      serviceName: '',
      scopeName: 'scope',
      scopeVersion: '1',
      redactedCount: 3,
      sizeBytes: 512,
    });
    const second = {
      traceId: traceId(),
      traceFirstReceivedAt: new Date('2026-11-19T23:59:59.999Z'),
      spans: [publishedSpan({ spanId: spanId() }), agent],
    };
    const event = received([first, second]);
    const offset = '9007199254740993';
    const rows = await stored([{ value: spanEventBytes(event), offset }]);
    expect(rows).toEqual([
      expected(event, first, first.spans[0]!, offset, 0),
      expected(event, second, second.spans[0]!, offset, 1),
      expected(event, second, agent, offset, 2),
    ]);
  });

  it('keeps every byte of text: tabs, newlines, backslashes, NUL, quotes and characters beyond ASCII', async () => {
    const awkward = 'a\tb\nc\\d\r\0e\'f"g 🚀 日本語 \\N';
    const span = publishedSpan({
      spanId: spanId(),
      name: awkward,
      statusMessage: awkward,
      sessionId: awkward,
      environment: '',
      input: JSON.stringify({ text: awkward }),
      output: JSON.stringify([awkward]),
      attributes: JSON.stringify({ 'k\tey': awkward }),
      events: JSON.stringify([{ name: awkward }]),
      links: JSON.stringify([{ trace_id: awkward }]),
      resourceAttributes: JSON.stringify({ 'service.name': awkward }),
      scopeName: awkward,
    });
    const trace = { traceId: traceId(), traceFirstReceivedAt: at, spans: [span] };
    const event = received([trace]);
    expect(await stored([{ value: spanEventBytes(event), offset: '0' }])).toEqual([
      expected(event, trace, span, '0', 0),
    ]);
  });

  it("gives the domain's defaults: empty JSON texts as {} and [], an unknown kind as span", async () => {
    const id = traceId();
    const wire = {
      eventId: 'e-defaults',
      orgId: 'org_a',
      occurredAtMs: at.getTime(),
      tracesReceived: {
        traces: [
          { traceId: id, traceFirstReceivedAtMs: at.getTime(), spans: [{ spanId: 'a', kind: 'bogus' }] },
        ],
      },
    };
    const [row] = await stored([{ value: spanEventBytes(wire), offset: '1' }]);
    expect(row).toMatchObject({
      // Not 16 hex digits (admission lets no such id in): still the column's 8 bytes, all zero.
      span_id: '0000000000000000',
      kind: 'span',
      start_time_unix_nano: '0',
      model: null,
      input_tokens: null,
      attributes: '{}',
      events: '[]',
      links: '[]',
      resource_attributes: '{}',
      size_bytes: '0',
    });
  });

  it('reads the one-trace SpansReceived written before TracesReceived', async () => {
    const id = traceId();
    const span = publishedSpan({ traceId: id, spanId: spanId(), model: 'm', inputTokens: 7 });
    const legacy = {
      eventId: 'e-legacy',
      orgId: 'org_a',
      occurredAtMs: at.getTime(),
      traceId: id,
      spansReceived: {
        traceFirstReceivedAtMs: at.getTime(),
        spans: [{ spanId: span.spanId, model: 'm', inputTokens: 7, kind: 'span', attributesJson: '{}' }],
      },
    };
    const [row] = await stored([{ value: spanEventBytes(legacy), offset: '5' }]);
    expect(row).toMatchObject({
      trace_id: id,
      span_id: span.spanId,
      model: 'm',
      input_tokens: '7',
      output_tokens: null,
    });
  });

  it('writes each event at its own offset', async () => {
    const one = received([{ traceId: traceId(), traceFirstReceivedAt: at, spans: [publishedSpan()] }]);
    const two = received([{ traceId: traceId(), traceFirstReceivedAt: at, spans: [publishedSpan()] }]);
    const rows = await stored([
      { value: spanEventBytes(one), offset: '3' },
      { value: spanEventBytes(two), offset: '4' },
    ]);
    expect(rows.map((row) => [row.span_id, row.received_offset, row.received_index])).toEqual([
      [one.traces[0]!.spans[0]!.spanId, '3', 0],
      [two.traces[0]!.spans[0]!.spanId, '4', 0],
    ]);
  });
});
