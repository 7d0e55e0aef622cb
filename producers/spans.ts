import type { SpanEvent } from '../domain/tracing/events.ts';
import { spanEventToWire } from '../schemas/events/spans-mapping.ts';
import type { EventProducer } from './producer.ts';

/** Keyed by org and trace: a trace's spans and its deletion stay in order on one partition. */
export function publishSpanEvents(producer: EventProducer, events: SpanEvent[]): Promise<void> {
  return producer.send(
    'spans',
    events.map((event) => ({ key: `${event.orgId}/${event.traceId}`, value: spanEventToWire(event) })),
  );
}
