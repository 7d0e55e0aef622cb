import type { StoredSpan } from './span.ts';

// The spans stream's facts (topic orrery.spans.v1). A trace's events go to the partition its
// org and trace id hash to, as Kafka places a key: its spans and its deletion stay in order. Their
// protobuf form is schemas/events/spans.proto; schemas/events/spans-mapping.ts maps between the two.

/** A span as published: the stored span and its size as counted against the monthly data limit. */
export interface PublishedSpan extends StoredSpan {
  sizeBytes: number;
}

/** One trace's spans in a SpansReceived. */
export interface ReceivedTrace {
  traceId: string;
  /** When the trace's first span was received: its retention clock and storage partition. */
  traceFirstReceivedAt: Date;
  spans: PublishedSpan[];
}

interface SpanEventBase {
  eventId: string;
  orgId: string;
  occurredAt: Date;
}

export type SpanEvent =
  /** Spans of one request, of the traces whose keys share a partition. */
  | (SpanEventBase & {
      type: 'SpansReceived';
      traces: ReceivedTrace[];
      /**
       * The admission group that recorded these spans in the ledger, whose fate decides whether
       * they are projected (stores/admission-groups.ts); absent in events written before.
       */
      admissionId?: string;
    })
  | (SpanEventBase & { type: 'TraceDeleted'; traceId: string });
