import type { StoredSpan } from './span.ts';

// The spans stream's facts (topic orrery.spans.v1, keyed by org and trace). Their protobuf form is
// schemas/events/spans.proto; schemas/events/spans-mapping.ts maps between the two.

interface TraceEventBase {
  eventId: string;
  orgId: string;
  traceId: string;
  occurredAt: Date;
}

/** A span as published: the stored span and its size as counted against the monthly data limit. */
export interface PublishedSpan extends StoredSpan {
  sizeBytes: number;
}

export type SpanEvent =
  | (TraceEventBase & {
      type: 'SpansReceived';
      /** When the trace's first span was received: its retention clock and storage partition. */
      traceFirstReceivedAt: Date;
      spans: PublishedSpan[];
    })
  | (TraceEventBase & { type: 'TraceDeleted' });
