import { randomUUID } from 'node:crypto';
import type { ReceivedTrace, SpanEvent } from '../domain/tracing/events.ts';
import { keyPartition } from '../platform/kafka.ts';
import { spanEventToWire } from '../schemas/events/spans-mapping.ts';
import type { EventProducer } from './producer.ts';

/**
 * A trace's key, org id "/" trace id. Its events go to the partition Kafka would place the key on
 * (as it placed them when each was its own message), so its spans and its deletion stay in order.
 */
const traceKey = (orgId: string, traceId: string) => `${orgId}/${traceId}`;

/** Where an event goes: a SpansReceived's traces all fall on one partition (spansReceivedEvents). */
function eventPartition(event: SpanEvent, partitionCount: number): number | undefined {
  const traceId = event.type === 'TraceDeleted' ? event.traceId : event.traces[0]?.traceId;
  return traceId === undefined ? undefined : keyPartition(traceKey(event.orgId, traceId), partitionCount);
}

/** Each event on its traces' partition, keyed by org (the partition, not the key, places it). */
export async function publishSpanEvents(producer: EventProducer, events: SpanEvent[]): Promise<void> {
  const partitionCount = await producer.partitionCount('spans');
  const records = events.flatMap((event) => {
    const partition = eventPartition(event, partitionCount);
    return partition === undefined ? [] : [{ key: event.orgId, partition, value: spanEventToWire(event) }];
  });
  await producer.send('spans', records);
}

/**
 * An event holds at most about 1 MiB of span data (a span is at most `limits.spanBytes`), so no
 * Kafka message comes near the broker's size limit, whatever the request.
 */
const maxEventBytes = 1024 * 1024;

/** The traces' spans in order, cut where a chunk would pass `maxEventBytes`; a trace may span two. */
export function chunkBySize(traces: ReceivedTrace[]): ReceivedTrace[][] {
  const chunks: ReceivedTrace[][] = [];
  let chunk: ReceivedTrace[] = [];
  let bytes = 0;
  for (const trace of traces) {
    let part: ReceivedTrace | undefined;
    for (const span of trace.spans) {
      if (bytes > 0 && bytes + span.sizeBytes > maxEventBytes) {
        chunks.push(chunk);
        chunk = [];
        bytes = 0;
        part = undefined;
      }
      if (!part) {
        part = { ...trace, spans: [] };
        chunk.push(part);
      }
      part.spans.push(span);
      bytes += span.sizeBytes;
    }
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/**
 * One request's accepted spans as SpansReceived events: the traces that fall on one partition go
 * together, so a request is a message per partition (and per MiB) rather than one per trace.
 */
export function spansReceivedEvents(
  received: { orgId: string; occurredAt: Date; traces: ReceivedTrace[] },
  partitionCount: number,
): SpanEvent[] {
  const byPartition = new Map<number, ReceivedTrace[]>();
  for (const trace of received.traces) {
    const partition = keyPartition(traceKey(received.orgId, trace.traceId), partitionCount);
    const traces = byPartition.get(partition) ?? [];
    traces.push(trace);
    byPartition.set(partition, traces);
  }
  return [...byPartition.values()].flatMap((traces) =>
    chunkBySize(traces).map((chunk) => ({
      type: 'SpansReceived' as const,
      eventId: randomUUID(),
      orgId: received.orgId,
      occurredAt: received.occurredAt,
      traces: chunk,
    })),
  );
}

/** Publishes one request's accepted spans (spansReceivedEvents), acknowledged by Kafka. */
export async function publishSpansReceived(
  producer: EventProducer,
  received: { orgId: string; occurredAt: Date; traces: ReceivedTrace[] },
): Promise<void> {
  const events = spansReceivedEvents(received, await producer.partitionCount('spans'));
  await publishSpanEvents(producer, events);
}
