import protobuf from 'protobufjs';
import type { RowBinaryWriter } from '../platform/clickhouse-rowbinary.ts';
import { framedPayload } from '../platform/registry.ts';
import {
  spanEventFields as event,
  legacySpansReceivedFields as legacy,
  spanFields as span,
  traceSpansFields as trace,
  tracesReceivedFields as traces,
} from '../schemas/events/spans-fields.ts';
import { wireType } from '../schemas/protobuf-wire.ts';
import { SpanFields, spanIdBytes, traceIdBytes } from './span-wire-fields.ts';
import { TraceFragment } from './trace-fragments-rowbinary.ts';

// The spans topic's events as the spans projection applies them (spans-clickhouse.ts): a
// deletion as its trace, and received spans as the protobuf bytes they came in, transcoded into
// the `spans` table's RowBinary rows without a JavaScript object or string per field. Decoding
// each event into objects (protobufjs, then the domain mapping) and writing TabSeparated rows
// took about 60 % of the consumers' CPU under load. The rows are those the domain mapping
// (schemas/events/spans-mapping.ts) and its defaults give; test/int/traces/span-rows.int.test.ts
// holds the two to each other through ClickHouse itself. Field numbers come from spans.proto
// (schemas/events/spans-fields.ts).

/** A span event as the projection applies it; received spans stay the bytes they came in. */
export type SpanRecord =
  | { type: 'TraceDeleted'; orgId: string; traceId: string }
  | {
      type: 'SpansReceived';
      orgId: string;
      /** Its admission group, whose fate decides whether it is projected; absent in older events. */
      admissionId?: string;
      payload: Buffer;
      /** Where its SpansReceived or TracesReceived is in the payload. */
      body: { start: number; end: number; legacyTraceId?: string };
    };

/** The fields of one message in [start, end): calls `field` with each one's number and wire type. */
function eachField(
  r: protobuf.Reader,
  start: number,
  end: number,
  field: (id: number, type: number) => void,
): void {
  r.pos = start;
  while (r.pos < end) {
    const tag = r.uint32();
    const before = r.pos;
    field(tag >>> 3, tag & 7);
    // A field the callback did not read is skipped.
    if (r.pos === before) r.skipType(tag & 7);
  }
  if (r.pos !== end) throw new Error('a field runs past its message');
}

/** A length-delimited field's bytes, as [start, end), the reader moved past them. */
function delimited(r: protobuf.Reader): [number, number] {
  const length = r.uint32();
  const start = r.pos;
  r.pos += length;
  return [start, start + length];
}

/** A varint's low and high 32 bits (protobufjs reads it as a long.js Long, or a number without long.js). */
function uint64Parts(r: protobuf.Reader): [number, number] {
  const value = r.uint64() as unknown as number | { low: number; high: number };
  if (typeof value === 'number') return [value >>> 0, Math.floor(value / 2 ** 32)];
  return [value.low >>> 0, value.high >>> 0];
}

const utf8 = new TextDecoder();
const text = (bytes: Uint8Array, [start, end]: [number, number]) => utf8.decode(bytes.subarray(start, end));
/** Whether a length-delimited field holds any bytes (an event id is only required, never read). */
const isFilled = ([start, end]: [number, number]) => end > start;

/**
 * A framed span event's envelope; undefined for one the projection cannot apply (no event or org
 * id, no trace id where one is needed: spanEventFromWire refuses the same), which goes to the
 * dead-letter topic. Throws on bytes that are not a span event.
 */
export function spanRecordOf(value: Buffer): SpanRecord | undefined {
  const payload = value.subarray(framedPayload(value));
  const r = protobuf.Reader.create(payload);
  let hasEventId = false;
  let orgId = '';
  let traceId = '';
  let admissionId = '';
  let kind: 'deleted' | 'legacy' | 'traces' | undefined;
  let body: [number, number] = [0, 0];
  eachField(r, 0, payload.length, (id, type) => {
    if (type !== wireType.delimited) return;
    if (id === event.eventId) hasEventId = isFilled(delimited(r));
    else if (id === event.orgId) orgId = text(payload, delimited(r));
    else if (id === event.traceId) traceId = text(payload, delimited(r));
    else if (id === event.admissionId) admissionId = text(payload, delimited(r));
    else if (id === event.traceDeleted) [kind, body] = ['deleted', delimited(r)];
    else if (id === event.spansReceived) [kind, body] = ['legacy', delimited(r)];
    else if (id === event.tracesReceived) [kind, body] = ['traces', delimited(r)];
  });
  if (!hasEventId || !orgId || !kind) return undefined;
  if (kind === 'deleted') return traceId ? { type: 'TraceDeleted', orgId, traceId } : undefined;
  if (kind === 'legacy' && !traceId) return undefined;
  if (kind === 'traces' && !everyTraceHasAnId(r, body)) return undefined;
  const [start, end] = body;
  return {
    type: 'SpansReceived',
    orgId,
    ...(admissionId ? { admissionId } : {}),
    payload,
    body: kind === 'legacy' ? { start, end, legacyTraceId: traceId } : { start, end },
  };
}

function everyTraceHasAnId(r: protobuf.Reader, [start, end]: [number, number]): boolean {
  const traceBodies: [number, number][] = [];
  eachField(r, start, end, (id, type) => {
    if (id === traces.traces && type === wireType.delimited) traceBodies.push(delimited(r));
  });
  return traceBodies.every(([from, to]) => {
    let hasId = false;
    eachField(r, from, to, (id, type) => {
      if (id !== trace.traceId || type !== wireType.delimited) return;
      const [idStart, idEnd] = delimited(r);
      hasId = idEnd > idStart;
    });
    return hasId;
  });
}

/** The `spans` table's columns, in the order `writeSpanRows` writes each row's values. */
export const spanColumns = [
  'org_id',
  'trace_id',
  'span_id',
  'trace_first_received_at',
  'parent_span_id',
  'name',
  'kind',
  'otel_kind',
  'start_time_unix_nano',
  'end_time_unix_nano',
  'status_code',
  'status_message',
  'model',
  'input_tokens',
  'output_tokens',
  'session_id',
  'user_id',
  'service_name',
  'environment',
  'input',
  'output',
  'input_truncated',
  'output_truncated',
  'redacted_count',
  'attributes',
  'events',
  'links',
  'resource_attributes',
  'scope_name',
  'scope_version',
  'size_bytes',
  'received_offset',
  'received_index',
  'cached_input_tokens',
  'reasoning_tokens',
  'cost_nano_usd',
] as const;

/** What every row of one event shares. */
interface EventRow {
  /** The org id's UTF-8 bytes, made once: a row copies them rather than encoding a string. */
  orgId: Buffer;
  /** The offset's low and high 32 bits. */
  offset: [number, number];
}

/**
 * Appends the rows of a SpansReceived's spans, numbered in the order sent across its traces (with
 * the offset, the order the trace's spans came in), and with `fragments` each trace's fragment
 * (trace-fragments-rowbinary.ts); returns how many spans.
 */
export function writeSpanRows(
  record: Extract<SpanRecord, { type: 'SpansReceived' }>,
  offset: string,
  out: RowBinaryWriter,
  fragments?: RowBinaryWriter,
): number {
  const { payload, body } = record;
  const r = protobuf.Reader.create(payload);
  const at = BigInt(offset);
  const shared: EventRow = {
    orgId: Buffer.from(record.orgId),
    offset: [Number(at & 0xffffffffn), Number(at >> 32n)],
  };
  const fields = new SpanFields();
  const fragment = fragments && new TraceFragment(fragments, payload, shared.orgId, shared.offset);
  let index = 0;
  // A trace id is its hex digits (in the payload, or the legacy envelope's), written into each row
  // as the bytes they spell.
  const writeTrace = (traceId: Buffer, firstReceivedMs: number, spans: [number, number][]) => {
    const firstReceived = Math.floor(firstReceivedMs / 1000);
    fragment?.begin(traceId, firstReceived);
    for (const [start, end] of spans) {
      fields.read(r, start, end);
      const kind = fields.kindCode(payload);
      writeSpanRow(out, shared, traceId, firstReceived, payload, fields, kind, index);
      fragment?.add(fields, index, kind);
      index += 1;
    }
    fragment?.write();
  };
  if (body.legacyTraceId !== undefined) {
    const { firstReceivedMs, spans } = traceBody(r, body.start, body.end, legacy);
    writeTrace(Buffer.from(body.legacyTraceId), firstReceivedMs, spans);
    return index;
  }
  const bodies: [number, number][] = [];
  eachField(r, body.start, body.end, (id, type) => {
    if (id === traces.traces && type === wireType.delimited) bodies.push(delimited(r));
  });
  for (const [start, end] of bodies) {
    const { traceId, firstReceivedMs, spans } = traceBody(r, start, end, trace);
    writeTrace(traceId, firstReceivedMs, spans);
  }
  return index;
}

/** A trace's id, first-received time and its spans' places, from a TraceSpans or a legacy SpansReceived. */
function traceBody(
  r: protobuf.Reader,
  start: number,
  end: number,
  fieldIds: { traceId?: number; traceFirstReceivedAtMs: number; spans: number },
): { traceId: Buffer; firstReceivedMs: number; spans: [number, number][] } {
  let idAt: [number, number] = [0, 0];
  let firstReceivedMs = 0;
  const spans: [number, number][] = [];
  const bytes = r.buf;
  eachField(r, start, end, (id, type) => {
    if (id === fieldIds.traceId && type === wireType.delimited) idAt = delimited(r);
    else if (id === fieldIds.spans && type === wireType.delimited) spans.push(delimited(r));
    else if (id === fieldIds.traceFirstReceivedAtMs && type === wireType.varint) {
      const [low, high] = uint64Parts(r);
      firstReceivedMs = high * 2 ** 32 + low;
    }
  });
  return { traceId: bytes.subarray(idAt[0], idAt[1]) as Buffer, firstReceivedMs, spans };
}

/** A text column: the field's bytes, or `absent` when the field is not there or empty. */
function textColumn(out: RowBinaryWriter, bytes: Buffer, fields: SpanFields, id: number, absent = ''): void {
  if (fields.hasText(id)) out.stringBytes(bytes, fields.starts[id]!, fields.ends[id]!);
  else out.string(absent);
}

/** A Nullable(String) column: NULL when the field is not there (proto3 `optional`). */
function optionalTextColumn(out: RowBinaryWriter, bytes: Buffer, fields: SpanFields, id: number): void {
  out.nullMarker(!fields.has(id));
  if (fields.has(id)) out.stringBytes(bytes, fields.starts[id]!, fields.ends[id]!);
}

/** A Nullable(UInt64) column from an `optional int64`. */
function optionalCountColumn(out: RowBinaryWriter, fields: SpanFields, id: number): void {
  out.nullMarker(!fields.has(id));
  if (fields.has(id)) out.uint64(fields.lows[id]!, fields.highs[id]!);
}

/** A UInt64 column from a fixed64 or int64 field; 0 when absent. */
function uint64Column(out: RowBinaryWriter, fields: SpanFields, id: number): void {
  out.uint64(fields.low(id), fields.high(id));
}

/** One row, its values in `spanColumns`' order, with the defaults spanFromWire gives. */
function writeSpanRow(
  out: RowBinaryWriter,
  shared: EventRow,
  traceId: Buffer,
  firstReceived: number,
  bytes: Buffer,
  fields: SpanFields,
  kind: number,
  index: number,
): void {
  out.stringOf(shared.orgId);
  out.fixedHex(traceId, 0, traceId.length, traceIdBytes);
  out.fixedHex(bytes, fields.textStart(span.spanId), fields.textEnd(span.spanId), spanIdBytes);
  out.uint32(firstReceived);
  out.hexString(bytes, fields.textStart(span.parentSpanId), fields.textEnd(span.parentSpanId));
  textColumn(out, bytes, fields, span.name);
  out.uint8(kind);
  out.uint8(fields.number(span.otelKind));
  uint64Column(out, fields, span.startTimeUnixNano);
  uint64Column(out, fields, span.endTimeUnixNano);
  out.uint8(fields.statusCode());
  textColumn(out, bytes, fields, span.statusMessage);
  optionalTextColumn(out, bytes, fields, span.model);
  optionalCountColumn(out, fields, span.inputTokens);
  optionalCountColumn(out, fields, span.outputTokens);
  optionalTextColumn(out, bytes, fields, span.sessionId);
  optionalTextColumn(out, bytes, fields, span.userId);
  optionalTextColumn(out, bytes, fields, span.serviceName);
  optionalTextColumn(out, bytes, fields, span.environment);
  optionalTextColumn(out, bytes, fields, span.input);
  optionalTextColumn(out, bytes, fields, span.output);
  out.uint8(fields.number(span.inputTruncated) === 0 ? 0 : 1);
  out.uint8(fields.number(span.outputTruncated) === 0 ? 0 : 1);
  out.uint32(fields.number(span.redactedCount));
  textColumn(out, bytes, fields, span.attributesJson, '{}');
  textColumn(out, bytes, fields, span.eventsJson, '[]');
  textColumn(out, bytes, fields, span.linksJson, '[]');
  textColumn(out, bytes, fields, span.resourceAttributesJson, '{}');
  textColumn(out, bytes, fields, span.scopeName);
  textColumn(out, bytes, fields, span.scopeVersion);
  uint64Column(out, fields, span.sizeBytes);
  out.uint64(shared.offset[0], shared.offset[1]);
  out.uint32(index);
  optionalCountColumn(out, fields, span.cachedInputTokens);
  optionalCountColumn(out, fields, span.reasoningTokens);
  optionalCountColumn(out, fields, span.costNanoUsd);
}
