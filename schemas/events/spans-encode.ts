import type { PublishedSpan, ReceivedTrace, SpanEvent } from '../../domain/tracing/events.ts';
import { ProtobufWriter } from '../protobuf-writer.ts';
import {
  spanEventFields as event,
  spanFields as span,
  traceSpansFields as trace,
  tracesReceivedFields as traces,
} from './spans-fields.ts';

// SpanEvent (domain) → orrery.spans.v1.SpanEvent's bytes, written from the domain values without
// an intermediate object (schemas/protobuf-writer.ts says why). spanEventFromWire
// (spans-mapping.ts) reads them back; test/unit/events/spans-encode.unit.test.ts holds the two to
// each other through protobufjs. A field at proto3's default is left out, as a reader gives the
// default for an absent field; a proto3 `optional` field is written whenever it is not null, so
// null stays apart from empty.

/** A framed SpanEvent: `header` (the Confluent frame, platform/registry.ts), then the event. */
export function encodeSpanEvent(spanEvent: SpanEvent, header: Uint8Array): Buffer {
  const writer = new ProtobufWriter(header, expectedBytes(spanEvent));
  writer.nonEmptyString(event.eventId, spanEvent.eventId);
  writer.nonEmptyString(event.orgId, spanEvent.orgId);
  writer.nonZeroInteger(event.occurredAtMs, spanEvent.occurredAt.getTime());
  if (spanEvent.type === 'TraceDeleted') {
    writer.nonEmptyString(event.traceId, spanEvent.traceId);
    writer.message(event.traceDeleted, () => undefined);
  } else {
    writer.nonEmptyString(event.admissionId, spanEvent.admissionId ?? '');
    writer.message(event.tracesReceived, () => {
      for (const received of spanEvent.traces)
        writer.message(traces.traces, () => writeTrace(writer, received));
    });
  }
  return writer.finish();
}

/**
 * The spans' stored size and room for their fixed fields: one buffer, seldom grown. No more than
 * an event holds (producers/spans.ts, chunkBySize): past that, the buffer grows as written.
 */
function expectedBytes(spanEvent: SpanEvent): number {
  if (spanEvent.type === 'TraceDeleted') return 128;
  let bytes = 128;
  for (const received of spanEvent.traces) {
    bytes += 64;
    for (const one of received.spans) bytes += one.sizeBytes + 96;
  }
  return Math.min(bytes, mostExpectedBytes);
}

const mostExpectedBytes = 2 * 1024 * 1024;

function writeTrace(writer: ProtobufWriter, received: ReceivedTrace): void {
  writer.nonEmptyString(trace.traceId, received.traceId);
  writer.nonZeroInteger(trace.traceFirstReceivedAtMs, received.traceFirstReceivedAt.getTime());
  for (const one of received.spans) writer.message(trace.spans, () => writeSpan(writer, one));
}

function writeSpan(writer: ProtobufWriter, stored: PublishedSpan): void {
  writer.nonEmptyString(span.spanId, stored.spanId);
  writer.nonEmptyString(span.parentSpanId, stored.parentSpanId);
  writer.nonEmptyString(span.name, stored.name);
  writer.nonEmptyString(span.kind, stored.kind);
  writer.nonZeroInteger(span.otelKind, stored.otelKind);
  writer.nonZeroFixed64(span.startTimeUnixNano, stored.startTimeUnixNano);
  writer.nonZeroFixed64(span.endTimeUnixNano, stored.endTimeUnixNano);
  writer.nonZeroInteger(span.statusCode, stored.statusCode);
  writer.nonEmptyString(span.statusMessage, stored.statusMessage);
  if (stored.model !== null) writer.string(span.model, stored.model);
  if (stored.inputTokens !== null) writer.integer(span.inputTokens, stored.inputTokens);
  if (stored.outputTokens !== null) writer.integer(span.outputTokens, stored.outputTokens);
  if (stored.input !== null) writer.string(span.input, stored.input);
  if (stored.output !== null) writer.string(span.output, stored.output);
  writer.nonZeroInteger(span.inputTruncated, stored.inputTruncated ? 1 : 0);
  writer.nonZeroInteger(span.outputTruncated, stored.outputTruncated ? 1 : 0);
  if (stored.sessionId !== null) writer.string(span.sessionId, stored.sessionId);
  if (stored.userId !== null) writer.string(span.userId, stored.userId);
  if (stored.serviceName !== null) writer.string(span.serviceName, stored.serviceName);
  if (stored.environment !== null) writer.string(span.environment, stored.environment);
  writer.nonEmptyString(span.attributesJson, stored.attributes);
  writer.nonEmptyString(span.eventsJson, stored.events);
  writer.nonEmptyString(span.linksJson, stored.links);
  writer.nonEmptyString(span.resourceAttributesJson, stored.resourceAttributes);
  writer.nonEmptyString(span.scopeName, stored.scopeName);
  writer.nonEmptyString(span.scopeVersion, stored.scopeVersion);
  writer.nonZeroInteger(span.redactedCount, stored.redactedCount);
  writer.nonZeroInteger(span.sizeBytes, stored.sizeBytes);
  if (stored.cachedInputTokens !== null) writer.integer(span.cachedInputTokens, stored.cachedInputTokens);
  if (stored.reasoningTokens !== null) writer.integer(span.reasoningTokens, stored.reasoningTokens);
  if (stored.costNanoUsd !== null) writer.integer(span.costNanoUsd, stored.costNanoUsd);
}
