import { describe, expect, it } from 'vitest';
import type { ReceivedTrace, SpanEvent } from '../../../domain/tracing/events.ts';
import { keyPartition } from '../../../platform/kafka.ts';
import { chunkBySize, spansReceivedEvents } from '../../../producers/spans.ts';
import { publishedSpan } from '../../harness/spans.ts';

// keyPartition is checked against Kafka's own murmur2 vectors and the broker's placement in
// test/int/backbone/producer.int.test.ts.

const at = new Date('2026-11-25T10:00:00Z');
const trace = (traceId: string, spanCount: number, sizeBytes = 100): ReceivedTrace => ({
  traceId,
  traceFirstReceivedAt: at,
  spans: Array.from({ length: spanCount }, (_, index) =>
    publishedSpan({ traceId, spanId: `${traceId}-${index}`, sizeBytes }),
  ),
});
const traceIds = (event: SpanEvent) =>
  event.type === 'SpansReceived' ? event.traces.map((t) => t.traceId) : [];

describe("one request's spans as SpansReceived events", () => {
  const traces = Array.from({ length: 128 }, (_, index) => trace(`trace-${index}`, 4));
  const placed = spansReceivedEvents({ orgId: 'org_a', occurredAt: at, traces }, 4);
  const events = placed.map(({ event }) => event);

  it('is one event per partition the traces fall on, each trace on the partition of its key', () => {
    expect(placed.map(({ partition }) => partition).sort()).toEqual([0, 1, 2, 3]);
    for (const { partition, event } of placed)
      for (const traceId of traceIds(event)) expect(keyPartition(`org_a/${traceId}`, 4)).toBe(partition);
    expect(events.flatMap(traceIds).sort()).toEqual(traces.map((t) => t.traceId).sort());
  });

  it('keeps the traces in the order they came, each with all its spans, under ids of their own', () => {
    for (const event of events) {
      const ids = traceIds(event);
      expect(ids).toEqual([...ids].sort((a, b) => Number(a.split('-')[1]) - Number(b.split('-')[1])));
      if (event.type === 'SpansReceived') for (const t of event.traces) expect(t.spans).toHaveLength(4);
    }
    expect(new Set(events.map((event) => event.eventId)).size).toBe(4);
  });
});

describe('events of at most about 1 MiB of span data', () => {
  const kib = 1024;

  it('cuts between spans, a trace going on in the next event in order', () => {
    const chunks = chunkBySize([trace('a', 3, 400 * kib), trace('b', 2, 300 * kib)]);
    expect(
      chunks.map((chunk) => chunk.map((t) => `${t.traceId}:${t.spans.map((s) => s.spanId).join(',')}`)),
    ).toEqual([['a:a-0,a-1'], ['a:a-2', 'b:b-0,b-1']]);
  });

  it('keeps a span larger than the bound whole, in an event of its own', () => {
    const chunks = chunkBySize([trace('a', 1, 10), trace('b', 1, 2048 * kib), trace('c', 1, 10)]);
    expect(chunks.map((chunk) => chunk.map((t) => t.traceId))).toEqual([['a'], ['b'], ['c']]);
  });
});
