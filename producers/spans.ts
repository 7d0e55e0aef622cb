import { randomUUID } from 'node:crypto';
import type { ReceivedTrace, SpanEvent } from '../domain/tracing/events.ts';
import { keyPartition } from '../platform/kafka.ts';
import { encodeSpanEvent } from '../schemas/events/spans-encode.ts';
import type { EventProducer } from './producer.ts';

/**
 * A trace's partition: where Kafka places its key, org id "/" trace id (as it placed the trace's
 * events when each was its own message), so its spans and its deletion stay in order.
 */
const tracePartition = (orgId: string, traceId: string, partitionCount: number) =>
  keyPartition(`${orgId}/${traceId}`, partitionCount);

/** A span event and the partition it goes to. */
export interface PlacedSpanEvent {
  partition: number;
  event: SpanEvent;
}

/** An event on its traces' partition; refused if its traces fall on more than one. */
function placed(event: SpanEvent, partitionCount: number): PlacedSpanEvent[] {
  const traceIds =
    event.type === 'TraceDeleted' ? [event.traceId] : event.traces.map((trace) => trace.traceId);
  const partitions = new Set(traceIds.map((traceId) => tracePartition(event.orgId, traceId, partitionCount)));
  if (partitions.size > 1)
    throw new Error(
      'a SpansReceived holds traces of more than one partition: build it with spansReceivedEvents',
    );
  const [partition] = partitions;
  return partition === undefined ? [] : [{ partition, event }];
}

/**
 * Keyed by org: the partition, not the key, places a span event. Sent at once (`atOnce`): an
 * admission group is already one message per partition.
 */
function sendPlaced(producer: EventProducer, events: PlacedSpanEvent[]): Promise<void> {
  return producer.sendFramed(
    'spans',
    (header) =>
      events.map(({ partition, event }) => ({
        key: event.orgId,
        partition,
        value: encodeSpanEvent(event, header),
      })),
    { atOnce: true },
  );
}

/** Each event on the partition of its traces' keys. */
export async function publishSpanEvents(producer: EventProducer, events: SpanEvent[]): Promise<void> {
  const partitionCount = await producer.partitionCount('spans');
  await sendPlaced(
    producer,
    events.flatMap((event) => placed(event, partitionCount)),
  );
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

/** The spans a group accepted, and the admission group whose fate decides their projection. */
export interface AcceptedSpans {
  orgId: string;
  occurredAt: Date;
  traces: ReceivedTrace[];
  admissionId?: string;
}

/**
 * One request's accepted spans as SpansReceived events: the traces that fall on one partition go
 * together, so a request is a message per partition (and per MiB) rather than one per trace.
 */
export function spansReceivedEvents(received: AcceptedSpans, partitionCount: number): PlacedSpanEvent[] {
  const byPartition = new Map<number, ReceivedTrace[]>();
  for (const trace of received.traces) {
    const partition = tracePartition(received.orgId, trace.traceId, partitionCount);
    const traces = byPartition.get(partition) ?? [];
    traces.push(trace);
    byPartition.set(partition, traces);
  }
  return [...byPartition].flatMap(([partition, traces]) =>
    chunkBySize(traces).map((chunk) => ({
      partition,
      event: {
        type: 'SpansReceived' as const,
        eventId: randomUUID(),
        orgId: received.orgId,
        occurredAt: received.occurredAt,
        traces: chunk,
        ...(received.admissionId ? { admissionId: received.admissionId } : {}),
      },
    })),
  );
}

/** Publishes one request's accepted spans (spansReceivedEvents), acknowledged by Kafka. */
export async function publishSpansReceived(producer: EventProducer, received: AcceptedSpans): Promise<void> {
  await sendPlaced(producer, spansReceivedEvents(received, await producer.partitionCount('spans')));
}
