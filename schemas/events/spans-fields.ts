import type protobuf from 'protobufjs';
import { valueType } from './index.ts';

// The field numbers of the spans topic's messages, by name, read from spans.proto itself: the span
// events' writer (spans-encode.ts) and the spans projection's transcoder
// (projections/spans-rowbinary.ts) handle the bytes without protobufjs objects, and both name
// each field from here.

const eventType = valueType('spans');
const typeOf = (name: string) => eventType.lookupType(name);
const ids = <K extends string>(type: protobuf.Type, names: readonly K[]) =>
  Object.fromEntries(names.map((name) => [name, type.fields[name]!.id])) as Record<K, number>;

export const spanEventFields = ids(eventType, [
  'eventId',
  'orgId',
  'occurredAtMs',
  'traceId',
  'admissionId',
  'spansReceived',
  'traceDeleted',
  'tracesReceived',
]);
/** The one-trace SpansReceived written before TracesReceived: still read, no longer written. */
export const legacySpansReceivedFields = ids(typeOf('SpansReceived'), ['traceFirstReceivedAtMs', 'spans']);
/** The Span message: its fields' numbers below, and their types for readers that need them. */
export const spanType = typeOf('Span');
export const tracesReceivedFields = ids(typeOf('TracesReceived'), ['traces']);
export const traceSpansFields = ids(typeOf('TraceSpans'), ['traceId', 'traceFirstReceivedAtMs', 'spans']);
export const spanFields = ids(spanType, [
  'spanId',
  'parentSpanId',
  'name',
  'kind',
  'otelKind',
  'startTimeUnixNano',
  'endTimeUnixNano',
  'statusCode',
  'statusMessage',
  'model',
  'inputTokens',
  'outputTokens',
  'input',
  'output',
  'inputTruncated',
  'outputTruncated',
  'sessionId',
  'userId',
  'serviceName',
  'environment',
  'attributesJson',
  'eventsJson',
  'linksJson',
  'resourceAttributesJson',
  'scopeName',
  'scopeVersion',
  'redactedCount',
  'sizeBytes',
  'cachedInputTokens',
  'reasoningTokens',
  'costNanoUsd',
]);
