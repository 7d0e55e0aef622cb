import { describe, expect, it } from 'vitest';
import type { SpanEvent } from '../../../domain/tracing/events.ts';
import { spanRow, spanRows, spanWriteSteps } from '../../../projections/spans-clickhouse.ts';
import { publishedSpan } from '../../harness/spans.ts';

const occurredAt = new Date('2026-11-20T10:00:00Z');
const received = (...traceIds: string[]): SpanEvent => ({
  type: 'SpansReceived',
  eventId: `e-${traceIds.join('-')}`,
  orgId: 'org_a',
  occurredAt,
  traces: traceIds.map((traceId) => ({ traceId, traceFirstReceivedAt: occurredAt, spans: [] })),
});
const deleted = (traceId: string): SpanEvent => ({
  type: 'TraceDeleted',
  eventId: `d-${traceId}`,
  orgId: 'org_a',
  traceId,
  occurredAt,
});

/** The steps as `+t1,t2 -t3`, for tables. */
function steps(events: SpanEvent[]): string {
  return spanWriteSteps(events.map((event, offset) => ({ event, offset: String(offset) })))
    .map((step) =>
      step.type === 'insert'
        ? `+${step.events.map(({ event }) => event.traces.map((trace) => trace.traceId).join('&')).join(',')}`
        : `-${step.traces.map((trace) => trace.traceId).join(',')}`,
    )
    .join(' ');
}

describe('a batch of span events as write steps, in the topic order', () => {
  it.each([
    ['nothing', [], ''],
    ['spans only: one insert', [received('t1'), received('t2'), received('t1')], '+t1,t2,t1'],
    ['deletions only: one delete', [deleted('t1'), deleted('t2')], '-t1,t2'],
    ['a deletion after spans deletes them', [received('t1'), deleted('t1')], '+t1 -t1'],
    [
      'events of several traces are inserted as they are',
      [received('t1', 't2'), deleted('t2'), received('t2', 't3')],
      '+t1&t2 -t2 +t2&t3',
    ],
    [
      'spans after a deletion are inserted after it, so they are kept',
      [received('t1'), deleted('t1'), received('t1'), received('t2')],
      '+t1 -t1 +t1,t2',
    ],
  ])('%s', (_, events, expected) => {
    expect(steps(events)).toBe(expected);
  });
});

describe('a span as a row', () => {
  const span = publishedSpan({
    traceId: 't1',
    spanId: 's1',
    name: 'agent',
    kind: 'agent',
    startTimeUnixNano: 1_763_632_800_123_456_789n,
    endTimeUnixNano: 18_446_744_073_709_551_615n,
    statusCode: 2,
    statusMessage: 'boom',
    inputTokens: 0,
    input: '{"value":"hi"}',
    inputTruncated: true,
    userId: 'u',
    serviceName: '',
    scopeName: 'scope',
    scopeVersion: '1',
    redactedCount: 3,
    sizeBytes: 512,
  });

  it('keeps nanoseconds exact, null apart from empty and zero, and the order sent', () => {
    const event = received('t0', 't1') as Extract<SpanEvent, { type: 'SpansReceived' }>;
    const trace = { ...event.traces[1]!, traceFirstReceivedAt: new Date('2026-11-20T10:00:00Z') };
    const row = spanRow({ event, offset: '9007199254740993' }, trace, span, 4);
    expect(row).toMatchObject({
      org_id: 'org_a',
      trace_id: 't1',
      trace_first_received_at: 1_795_168_800,
      start_time_unix_nano: '1763632800123456789',
      end_time_unix_nano: '18446744073709551615',
      model: null,
      input_tokens: 0,
      output_tokens: null,
      service_name: '',
      environment: null,
      input_truncated: 1,
      output_truncated: 0,
      received_offset: '9007199254740993',
      received_index: 4,
    });
  });

  it('numbers the spans of an event in the order sent, across its traces', () => {
    const spanOf = (traceId: string, spanId: string) => publishedSpan({ traceId, spanId });
    const event: SpanEvent = {
      type: 'SpansReceived',
      eventId: 'e',
      orgId: 'org_a',
      occurredAt,
      traces: [
        { traceId: 't1', traceFirstReceivedAt: occurredAt, spans: [spanOf('t1', 'a'), spanOf('t1', 'b')] },
        { traceId: 't2', traceFirstReceivedAt: new Date('2026-11-19T00:00:00Z'), spans: [spanOf('t2', 'c')] },
      ],
    };
    const rows = spanRows([{ event, offset: '7' }]).map((row) => [
      row.trace_id,
      row.span_id,
      row.trace_first_received_at,
      row.received_offset,
      row.received_index,
    ]);
    expect(rows).toEqual([
      ['t1', 'a', 1_795_168_800, '7', 0],
      ['t1', 'b', 1_795_168_800, '7', 1],
      ['t2', 'c', 1_795_046_400, '7', 2],
    ]);
  });
});
