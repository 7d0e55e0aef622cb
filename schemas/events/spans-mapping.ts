import type { PublishedSpan, ReceivedTrace, SpanEvent } from '../../domain/tracing/events.ts';
import { type SpanKind, spanKinds } from '../../domain/tracing/span.ts';
import { list, text, type Wire } from './wire.ts';

// orrery.spans.v1.SpanEvent (protobuf, camelCase as protobufjs reads it) -> SpanEvent (domain); the
// other way is spans-encode.ts. Optional fields are absent when null, so a missing model is not
// confused with an empty one.

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
    cachedInputTokens: optionalCount(wire, 'cachedInputTokens'),
    reasoningTokens: optionalCount(wire, 'reasoningTokens'),
    costNanoUsd: optionalCount(wire, 'costNanoUsd'),
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
  if (!traces) return undefined;
  const admissionId = text(wire.admissionId);
  return { ...base, type: 'SpansReceived', traces, ...(admissionId ? { admissionId } : {}) };
}
