import { describe, expect, it } from 'vitest';
import type { SpanEvent } from '../../../domain/tracing/events.ts';
import { spanWriteSteps } from '../../../projections/spans-clickhouse.ts';
import { spanRecord } from '../../harness/span-records.ts';

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
  return spanWriteSteps(events.map((event, offset) => ({ event: spanRecord(event), offset: String(offset) })))
    .map((step) =>
      step.type === 'insert'
        ? `+${step.events.map(({ offset }) => events[Number(offset)]!.eventId.slice(2).replaceAll('-', '&')).join(',')}`
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
