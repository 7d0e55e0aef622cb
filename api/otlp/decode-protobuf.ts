// Parsing an ExportTraceServiceRequest (opentelemetry-proto collector/trace/v1) from protobuf
// straight into the types of domain/tracing/otlp.ts. Anything else is `invalid_otlp`.
import protobuf from 'protobufjs';
import type {
  AnyValue,
  KeyValue,
  OtlpEvent,
  OtlpLink,
  OtlpResourceSpans,
  OtlpScope,
  OtlpScopeSpans,
  OtlpSpan,
  OtlpStatus,
  OtlpTraceRequest,
} from '../../domain/tracing/otlp.ts';
import { wireType } from '../../schemas/protobuf-wire.ts';
import { empty, maxValueDepth, spanKinds, statusCodes } from './decode-common.ts';
import { OtlpError } from './errors.ts';

type Reader = protobuf.Reader;
// ---- protobuf ----------------------------------------------------------------------------------
// Decoded by hand over protobufjs's Reader rather than through a reflected Type: no intermediate
// objects, ids straight to hex, fixed64 straight to bigint, about twice as fast as reflection plus
// mapping. Each message's fields are named below with their numbers in the vendored schemas/otlp
// protos (the tests encode with them); a known field with another wire type is skipped as unknown.

/** A field's tag as read from the wire: its number in the .proto, and its wire type. */
const tag = (field: number, type: number) => (field << 3) | type;

/** ExportTraceServiceRequest, ResourceSpans, Resource and ScopeSpans. */
const requestFields = { resourceSpans: tag(1, wireType.delimited) } as const;
const resourceSpansFields = {
  resource: tag(1, wireType.delimited),
  scopeSpans: tag(2, wireType.delimited),
  schemaUrl: tag(3, wireType.delimited),
} as const;
const resourceFields = {
  attributes: tag(1, wireType.delimited),
  droppedAttributesCount: tag(2, wireType.varint),
} as const;
const scopeSpansFields = {
  scope: tag(1, wireType.delimited),
  spans: tag(2, wireType.delimited),
  schemaUrl: tag(3, wireType.delimited),
} as const;
/** InstrumentationScope (common.proto). */
const scopeFields = {
  name: tag(1, wireType.delimited),
  version: tag(2, wireType.delimited),
  attributes: tag(3, wireType.delimited),
} as const;
const spanFields = {
  traceId: tag(1, wireType.delimited),
  spanId: tag(2, wireType.delimited),
  traceState: tag(3, wireType.delimited),
  parentSpanId: tag(4, wireType.delimited),
  name: tag(5, wireType.delimited),
  kind: tag(6, wireType.varint),
  startTimeUnixNano: tag(7, wireType.fixed64),
  endTimeUnixNano: tag(8, wireType.fixed64),
  attributes: tag(9, wireType.delimited),
  droppedAttributesCount: tag(10, wireType.varint),
  events: tag(11, wireType.delimited),
  droppedEventsCount: tag(12, wireType.varint),
  links: tag(13, wireType.delimited),
  droppedLinksCount: tag(14, wireType.varint),
  status: tag(15, wireType.delimited),
} as const;
const eventFields = {
  timeUnixNano: tag(1, wireType.fixed64),
  name: tag(2, wireType.delimited),
  attributes: tag(3, wireType.delimited),
  droppedAttributesCount: tag(4, wireType.varint),
} as const;
const linkFields = {
  traceId: tag(1, wireType.delimited),
  spanId: tag(2, wireType.delimited),
  traceState: tag(3, wireType.delimited),
  attributes: tag(4, wireType.delimited),
  droppedAttributesCount: tag(5, wireType.varint),
} as const;
const statusFields = { message: tag(2, wireType.delimited), code: tag(3, wireType.varint) } as const;
/** KeyValue, AnyValue (a oneof), and ArrayValue and KeyValueList (one repeated field each). */
const keyValueFields = { key: tag(1, wireType.delimited), value: tag(2, wireType.delimited) } as const;
const anyValueFields = {
  stringValue: tag(1, wireType.delimited),
  boolValue: tag(2, wireType.varint),
  intValue: tag(3, wireType.varint),
  doubleValue: tag(4, wireType.fixed64),
  arrayValue: tag(5, wireType.delimited),
  kvlistValue: tag(6, wireType.delimited),
  bytesValue: tag(7, wireType.delimited),
} as const;
const listFields = { values: tag(1, wireType.delimited) } as const;

export function decodeProtobuf(bytes: Buffer): OtlpTraceRequest {
  const reader = protobuf.Reader.create(bytes);
  try {
    const request: OtlpTraceRequest = { resourceSpans: [] };
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      if (tag === requestFields.resourceSpans)
        request.resourceSpans.push(readResourceSpans(reader, delimited(reader)));
      else skip(reader, tag);
    }
    return request;
  } catch (error) {
    const what = error instanceof Error ? error.message : String(error);
    throw new OtlpError('invalid_otlp', `not a protobuf ExportTraceServiceRequest: ${what}`);
  }
}

function readResourceSpans(r: Reader, end: number): OtlpResourceSpans {
  const out = empty.resourceSpans();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === resourceSpansFields.resource) out.resource = readResource(r, delimited(r));
    else if (tag === resourceSpansFields.scopeSpans) out.scopeSpans.push(readScopeSpans(r, delimited(r)));
    else if (tag === resourceSpansFields.schemaUrl) out.schemaUrl = text(r);
    else skip(r, tag);
  }
  return ended(r, end, out);
}

function readResource(r: Reader, end: number): OtlpResourceSpans['resource'] {
  const out = empty.resource();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === resourceFields.attributes) out.attributes.push(readKeyValue(r, delimited(r), 0));
    else if (tag === resourceFields.droppedAttributesCount) out.droppedAttributesCount = r.uint32();
    else skip(r, tag);
  }
  return ended(r, end, out);
}

function readScopeSpans(r: Reader, end: number): OtlpScopeSpans {
  const out = empty.scopeSpans();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === scopeSpansFields.scope) out.scope = readScope(r, delimited(r));
    else if (tag === scopeSpansFields.spans) out.spans.push(readSpan(r, delimited(r)));
    else if (tag === scopeSpansFields.schemaUrl) out.schemaUrl = text(r);
    else skip(r, tag);
  }
  return ended(r, end, out);
}

function readScope(r: Reader, end: number): OtlpScope {
  const out = empty.scope();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === scopeFields.name) out.name = text(r);
    else if (tag === scopeFields.version) out.version = text(r);
    else if (tag === scopeFields.attributes) out.attributes.push(readKeyValue(r, delimited(r), 0));
    else skip(r, tag);
  }
  return ended(r, end, out);
}

// The most frequent field first.
function readSpan(r: Reader, end: number): OtlpSpan {
  const span = empty.span();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === spanFields.attributes) span.attributes.push(readKeyValue(r, delimited(r), 0));
    else if (tag === spanFields.traceId) span.traceId = hexId(r);
    else if (tag === spanFields.spanId) span.spanId = hexId(r);
    else if (tag === spanFields.parentSpanId) span.parentSpanId = hexId(r);
    else if (tag === spanFields.name) span.name = text(r);
    else if (tag === spanFields.kind) span.kind = spanKinds[r.int32()] ?? 0;
    else if (tag === spanFields.startTimeUnixNano) span.startTimeUnixNano = fixed64(r);
    else if (tag === spanFields.endTimeUnixNano) span.endTimeUnixNano = fixed64(r);
    else if (tag === spanFields.status) span.status = readStatus(r, delimited(r));
    else if (tag === spanFields.events) span.events.push(readEvent(r, delimited(r)));
    else if (tag === spanFields.links) span.links.push(readLink(r, delimited(r)));
    else if (tag === spanFields.traceState) span.traceState = text(r);
    else if (tag === spanFields.droppedAttributesCount) span.droppedAttributesCount = r.uint32();
    else if (tag === spanFields.droppedEventsCount) span.droppedEventsCount = r.uint32();
    else if (tag === spanFields.droppedLinksCount) span.droppedLinksCount = r.uint32();
    else skip(r, tag);
  }
  return ended(r, end, span);
}

function readEvent(r: Reader, end: number): OtlpEvent {
  const out = empty.event();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === eventFields.timeUnixNano) out.timeUnixNano = fixed64(r);
    else if (tag === eventFields.name) out.name = text(r);
    else if (tag === eventFields.attributes) out.attributes.push(readKeyValue(r, delimited(r), 0));
    else if (tag === eventFields.droppedAttributesCount) out.droppedAttributesCount = r.uint32();
    else skip(r, tag);
  }
  return ended(r, end, out);
}

function readLink(r: Reader, end: number): OtlpLink {
  const out = empty.link();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === linkFields.traceId) out.traceId = hexId(r);
    else if (tag === linkFields.spanId) out.spanId = hexId(r);
    else if (tag === linkFields.traceState) out.traceState = text(r);
    else if (tag === linkFields.attributes) out.attributes.push(readKeyValue(r, delimited(r), 0));
    else if (tag === linkFields.droppedAttributesCount) out.droppedAttributesCount = r.uint32();
    else skip(r, tag);
  }
  return ended(r, end, out);
}

function readStatus(r: Reader, end: number): OtlpStatus {
  const out = empty.status();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === statusFields.message) out.message = text(r);
    else if (tag === statusFields.code) out.code = statusCodes[r.int32()] ?? 0;
    else skip(r, tag);
  }
  return ended(r, end, out);
}

function readKeyValue(r: Reader, end: number, depth: number): KeyValue {
  const out = empty.keyValue();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === keyValueFields.key) out.key = text(r);
    else if (tag === keyValueFields.value) out.value = readAnyValue(r, delimited(r), depth);
    else skip(r, tag);
  }
  return ended(r, end, out);
}

// A oneof: should several of its fields come, the last wins, as protobuf says.
function readAnyValue(r: Reader, end: number, depth: number): AnyValue {
  if (depth > maxValueDepth) throw new RangeError(`AnyValue nested deeper than ${maxValueDepth}`);
  let value: AnyValue = { kind: 'empty' };
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === anyValueFields.stringValue) value = { kind: 'string', value: text(r) };
    else if (tag === anyValueFields.intValue) value = { kind: 'int', value: int64(r) };
    else if (tag === anyValueFields.doubleValue) value = { kind: 'double', value: r.double() };
    else if (tag === anyValueFields.boolValue) value = { kind: 'bool', value: r.bool() };
    else if (tag === anyValueFields.arrayValue)
      value = { kind: 'array', values: readList(r, delimited(r), depth + 1, readAnyValue) };
    else if (tag === anyValueFields.kvlistValue)
      value = { kind: 'kvlist', values: readList(r, delimited(r), depth + 1, readKeyValue) };
    else if (tag === anyValueFields.bytesValue) value = { kind: 'bytes', value: bytes(r) };
    else skip(r, tag);
  }
  return ended(r, end, value);
}

/** ArrayValue and KeyValueList: one repeated message field, number 1. */
function readList<T>(
  r: Reader,
  end: number,
  depth: number,
  read: (r: Reader, end: number, depth: number) => T,
): T[] {
  const out: T[] = [];
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === listFields.values) out.push(read(r, delimited(r), depth));
    else skip(r, tag);
  }
  return ended(r, end, out);
}

/** Reads a length prefix; returns where the field ends. */
function delimited(r: Reader): number {
  const length = r.uint32();
  const end = r.pos + length;
  if (end > r.len) throw new RangeError(`a field of ${length} bytes runs past the end of the body`);
  return end;
}

/** A message must end exactly where its length said; a field running over means corrupt input. */
function ended<T>(r: Reader, end: number, message: T): T {
  if (r.pos !== end) throw new RangeError(`a field runs past the end of its message at offset ${end}`);
  return message;
}

function skip(r: Reader, tag: number): void {
  if (tag >>> 3 === 0) throw new RangeError(`field number 0 at offset ${r.pos}`);
  r.skipType(tag & 7);
}

// protobufjs's BufferReader.string() silently shortens a string cut by the end of the body.
function text(r: Reader): string {
  const end = delimited(r);
  const value = (r.buf as Buffer).toString('utf8', r.pos, end);
  r.pos = end;
  return value;
}

/**
 * Id bytes as lowercase hex, whatever their length (admission refuses wrong lengths, not parsing).
 * Node's own hex is a flat string: one built by concatenation is a rope that every later regex
 * test and map lookup of the id flattens first.
 */
function hexId(r: Reader): string {
  const end = delimited(r);
  const value = (r.buf as Buffer).toString('hex', r.pos, end);
  r.pos = end;
  return value;
}

/** A copy, so that a kept value does not hold the whole request body in memory. */
function bytes(r: Reader): Uint8Array {
  const end = delimited(r);
  const value = new Uint8Array(r.buf.subarray(r.pos, end));
  r.pos = end;
  return value;
}

function fixed64(r: Reader): bigint {
  const p = r.pos;
  if (p + 8 > r.len) throw new RangeError(`a fixed64 runs past the end of the body at offset ${p}`);
  const b = r.buf;
  const lo = (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
  const hi = (b[p + 4]! | (b[p + 5]! << 8) | (b[p + 6]! << 16) | (b[p + 7]! << 24)) >>> 0;
  r.pos = p + 8;
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** A varint int64 as bigint: numbers while exact (7 bytes, 49 bits), bigint beyond. */
function int64(r: Reader): bigint {
  const b = r.buf;
  let p = r.pos;
  let small = 0;
  let scale = 1;
  for (let i = 0; i < 7; i++, scale *= 128) {
    if (p >= r.len) throw new RangeError('a varint runs past the end of the body');
    const byte = b[p++]!;
    small += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      r.pos = p;
      return BigInt(small);
    }
  }
  let big = BigInt(small);
  for (let shift = 49n; shift < 70n; shift += 7n) {
    if (p >= r.len) throw new RangeError('a varint runs past the end of the body');
    const byte = b[p++]!;
    big |= BigInt(byte & 0x7f) << shift;
    if (byte < 0x80) {
      r.pos = p;
      return BigInt.asIntN(64, big);
    }
  }
  throw new RangeError('a varint longer than 10 bytes');
}
