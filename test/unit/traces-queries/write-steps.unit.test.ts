import { describe, expect, it } from 'vitest';
import type { SpanEvent } from '../../../domain/tracing/events.ts';
import { spanRow, spanWriteSteps } from '../../../projections/spans-clickhouse.ts';
import { publishedSpan } from '../../harness/spans.ts';

const occurredAt = new Date('2026-11-20T10:00:00Z');
const received = (traceId: string): SpanEvent => ({
  type: 'SpansReceived',
  eventId: `e-${traceId}`,
  orgId: 'org_a',
  traceId,
  occurredAt,
  traceFirstReceivedAt: occurredAt,
  spans: [],
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
        ? `+${step.events.map(({ event }) => event.traceId).join(',')}`
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
    const event = received('t1') as Extract<SpanEvent, { type: 'SpansReceived' }>;
    const row = spanRow({ event, offset: '9007199254740993' }, span, 4);
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
});
