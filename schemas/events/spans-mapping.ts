import type { PublishedSpan, ReceivedTrace, SpanEvent } from '../../domain/tracing/events.ts';
import { type SpanKind, spanKinds } from '../../domain/tracing/span.ts';
import { list, text, type Wire } from './wire.ts';

// SpanEvent (domain) <-> orrery.spans.v1.SpanEvent (protobuf, camelCase as protobufjs reads it).
// Optional fields are absent when null, so a missing model is not confused with an empty one.

/**
 * Built as one object literal with every field, the optional ones undefined when null (protobufjs
 * skips an undefined field, as it skips an absent one): on the publish hot path, spreading each
 * optional field in cost more than encoding the span.
 */
function spanToWire(span: PublishedSpan): Wire {
  return {
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    name: span.name,
    kind: span.kind,
    otelKind: span.otelKind,
    startTimeUnixNano: fixed64(span.startTimeUnixNano),
    endTimeUnixNano: fixed64(span.endTimeUnixNano),
    statusCode: span.statusCode,
    statusMessage: span.statusMessage,
    model: span.model ?? undefined,
    inputTokens: span.inputTokens ?? undefined,
    outputTokens: span.outputTokens ?? undefined,
    input: span.input ?? undefined,
    output: span.output ?? undefined,
    inputTruncated: span.inputTruncated,
    outputTruncated: span.outputTruncated,
    sessionId: span.sessionId ?? undefined,
    userId: span.userId ?? undefined,
    serviceName: span.serviceName ?? undefined,
    environment: span.environment ?? undefined,
    attributesJson: span.attributes,
    eventsJson: span.events,
    linksJson: span.links,
    resourceAttributesJson: span.resourceAttributes,
    scopeName: span.scopeName,
    scopeVersion: span.scopeVersion,
    redactedCount: span.redactedCount,
    sizeBytes: span.sizeBytes,
  };
}

/** A fixed64 as protobufjs takes it without parsing text: its low and high 32 bits. */
function fixed64(value: bigint): { low: number; high: number; unsigned: boolean } {
  return { low: Number(value & 0xffffffffn), high: Number((value >> 32n) & 0xffffffffn), unsigned: true };
}

function traceToWire(trace: ReceivedTrace): Wire {
  return {
    traceId: trace.traceId,
    traceFirstReceivedAtMs: trace.traceFirstReceivedAt.getTime(),
    spans: trace.spans.map(spanToWire),
  };
}

export function spanEventToWire(event: SpanEvent): Wire {
  const envelope = { eventId: event.eventId, orgId: event.orgId, occurredAtMs: event.occurredAt.getTime() };
  if (event.type === 'TraceDeleted') return { ...envelope, traceId: event.traceId, traceDeleted: {} };
  return { ...envelope, tracesReceived: { traces: event.traces.map(traceToWire) } };
}

const optionalText = (wire: Wire, key: string) =>
  typeof wire[key] === 'string' && key in wire ? (wire[key] as string) : null;
const optionalCount = (wire: Wire, key: string) =>
  wire[key] === undefined || wire[key] === null ? null : Number(wire[key]);
const isKind = (value: unknown): value is SpanKind => spanKinds.includes(value as SpanKind);
const statusCode = (value: unknown): 0 | 1 | 2 => (value === 1 || value === 2 ? value : 0);

function spanFromWire(traceId: string, wire: Wire): PublishedSpan {
  return {
    traceId,
    spanId: text(wire.spanId),
    parentSpanId: text(wire.parentSpanId),
    name: text(wire.name),
    kind: isKind(wire.kind) ? wire.kind : 'span',
    otelKind: Number(wire.otelKind ?? 0),
    startTimeUnixNano: BigInt(text(wire.startTimeUnixNano) || '0'),
    endTimeUnixNano: BigInt(text(wire.endTimeUnixNano) || '0'),
    statusCode: statusCode(wire.statusCode),
    statusMessage: text(wire.statusMessage),
    model: optionalText(wire, 'model'),
    inputTokens: optionalCount(wire, 'inputTokens'),
    outputTokens: optionalCount(wire, 'outputTokens'),
    input: optionalText(wire, 'input'),
    output: optionalText(wire, 'output'),
    inputTruncated: wire.inputTruncated === true,
    outputTruncated: wire.outputTruncated === true,
    sessionId: optionalText(wire, 'sessionId'),
    userId: optionalText(wire, 'userId'),
    serviceName: optionalText(wire, 'serviceName'),
    environment: optionalText(wire, 'environment'),
    attributes: text(wire.attributesJson) || '{}',
    events: text(wire.eventsJson) || '[]',
    links: text(wire.linksJson) || '[]',
    resourceAttributes: text(wire.resourceAttributesJson) || '{}',
    scopeName: text(wire.scopeName),
    scopeVersion: text(wire.scopeVersion),
    redactedCount: Number(wire.redactedCount ?? 0),
    sizeBytes: Number(wire.sizeBytes ?? 0),
  };
}

function traceFromWire(traceId: string, body: Wire): ReceivedTrace {
  return {
    traceId,
    traceFirstReceivedAt: new Date(Number(body.traceFirstReceivedAtMs ?? 0)),
    spans: list(body.spans).map((span) => spanFromWire(traceId, span)),
  };
}

/** The traces of a TracesReceived, or the one trace of a SpansReceived written before it existed. */
function receivedTraces(wire: Wire): ReceivedTrace[] | undefined {
  if (wire.event === 'spansReceived') {
    const traceId = text(wire.traceId);
    return traceId ? [traceFromWire(traceId, (wire.spansReceived ?? {}) as Wire)] : undefined;
  }
  const body = (wire.tracesReceived ?? {}) as Wire;
  const traces = list(body.traces);
  if (traces.some((trace) => !text(trace.traceId))) return undefined;
  return traces.map((trace) => traceFromWire(text(trace.traceId), trace));
}

/**
 * From a value decoded with `toObject({ longs: String, defaults: true, oneofs: true })`. Proto3
 * `optional` fields are absent (not defaulted) when unset, which keeps null apart from empty.
 */
export function spanEventFromWire(wire: Wire): SpanEvent | undefined {
  const base = {
    eventId: text(wire.eventId),
    orgId: text(wire.orgId),
    occurredAt: new Date(Number(wire.occurredAtMs ?? 0)),
  };
  if (!base.eventId || !base.orgId) return undefined;
  if (wire.event === 'traceDeleted') {
    const traceId = text(wire.traceId);
    return traceId ? { ...base, type: 'TraceDeleted', traceId } : undefined;
  }
  if (wire.event !== 'spansReceived' && wire.event !== 'tracesReceived') return undefined;
  const traces = receivedTraces(wire);
  return traces ? { ...base, type: 'SpansReceived', traces } : undefined;
}
