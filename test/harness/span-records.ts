import type { SpanEvent } from '../../domain/tracing/events.ts';
import { frameHeader, streamCodec } from '../../platform/registry.ts';
import { type SpanRecord, spanRecordOf } from '../../projections/spans-rowbinary.ts';
import { encodeSpanEvent } from '../../schemas/events/spans-encode.ts';

/**
 * A span event's bytes as the producer writes them (schema id aside); a wire object (an event
 * as protobufjs takes it: a legacy or a malformed one) through protobufjs.
 */
export function spanEventBytes(event: SpanEvent | Record<string, unknown>): Buffer {
  if ('type' in event) return encodeSpanEvent(event as SpanEvent, frameHeader(1));
  return streamCodec('spans', 1).encode(event);
}

/** A span event as the spans projection applies it, read from those bytes. */
export function spanRecord(event: SpanEvent): SpanRecord {
  const record = spanRecordOf(spanEventBytes(event));
  if (!record) throw new Error(`the spans projection does not apply ${event.type} ${event.eventId}`);
  return record;
}
