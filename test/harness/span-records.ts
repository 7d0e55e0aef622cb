import type { SpanEvent } from '../../domain/tracing/events.ts';
import { encodeWire, frame } from '../../platform/registry.ts';
import { type SpanRecord, spanRecordOf } from '../../projections/spans-rowbinary.ts';
import { valueType } from '../../schemas/events/index.ts';
import { spanEventToWire } from '../../schemas/events/spans-mapping.ts';

/** A span event's bytes as the producer frames them (schema id aside). */
export function spanEventBytes(event: SpanEvent | Record<string, unknown>): Buffer {
  const wire = 'type' in event ? spanEventToWire(event as SpanEvent) : event;
  return frame(1, encodeWire(valueType('spans'), wire));
}

/** A span event as the spans projection applies it, read from those bytes. */
export function spanRecord(event: SpanEvent): SpanRecord {
  const record = spanRecordOf(spanEventBytes(event));
  if (!record) throw new Error(`the spans projection does not apply ${event.type} ${event.eventId}`);
  return record;
}
