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
import { empty, maxValueDepth, spanKinds, statusCodes } from './decode-common.ts';
import { OtlpError } from './errors.ts';

type Reader = protobuf.Reader;
// ---- protobuf ----------------------------------------------------------------------------------
// Decoded by hand over protobufjs's Reader rather than through a reflected Type: no intermediate
// objects, ids straight to hex, fixed64 straight to bigint, about twice as fast as reflection plus
// mapping. Tags are (field number << 3) | wire type, from the vendored schemas/otlp protos (the
// tests encode with them); a known field with another wire type is skipped as unknown.

export function decodeProtobuf(bytes: Buffer): OtlpTraceRequest {
  const reader = protobuf.Reader.create(bytes);
  try {
    const request: OtlpTraceRequest = { resourceSpans: [] };
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      if (tag === 10) request.resourceSpans.push(readResourceSpans(reader, delimited(reader)));
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
    if (tag === 10) out.resource = readResource(r, delimited(r));
    else if (tag === 18) out.scopeSpans.push(readScopeSpans(r, delimited(r)));
    else if (tag === 26) out.schemaUrl = text(r);
    else skip(r, tag);
  }
  return ended(r, end, out);
}

function readResource(r: Reader, end: number): OtlpResourceSpans['resource'] {
  const out = empty.resource();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) out.attributes.push(readKeyValue(r, delimited(r), 0));
    else if (tag === 16) out.droppedAttributesCount = r.uint32();
    else skip(r, tag);
  }
  return ended(r, end, out);
}

function readScopeSpans(r: Reader, end: number): OtlpScopeSpans {
  const out = empty.scopeSpans();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) out.scope = readScope(r, delimited(r));
    else if (tag === 18) out.spans.push(readSpan(r, delimited(r)));
    else if (tag === 26) out.schemaUrl = text(r);
    else skip(r, tag);
  }
  return ended(r, end, out);
}

function readScope(r: Reader, end: number): OtlpScope {
  const out = empty.scope();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) out.name = text(r);
    else if (tag === 18) out.version = text(r);
    else if (tag === 26) out.attributes.push(readKeyValue(r, delimited(r), 0));
    else skip(r, tag);
  }
  return ended(r, end, out);
}

// The most frequent field first.
function readSpan(r: Reader, end: number): OtlpSpan {
  const span = empty.span();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 74) span.attributes.push(readKeyValue(r, delimited(r), 0));
    else if (tag === 10) span.traceId = hexId(r);
    else if (tag === 18) span.spanId = hexId(r);
    else if (tag === 34) span.parentSpanId = hexId(r);
    else if (tag === 42) span.name = text(r);
    else if (tag === 48) span.kind = spanKinds[r.int32()] ?? 0;
    else if (tag === 57) span.startTimeUnixNano = fixed64(r);
    else if (tag === 65) span.endTimeUnixNano = fixed64(r);
    else if (tag === 122) span.status = readStatus(r, delimited(r));
    else if (tag === 90) span.events.push(readEvent(r, delimited(r)));
    else if (tag === 106) span.links.push(readLink(r, delimited(r)));
    else if (tag === 26) span.traceState = text(r);
    else if (tag === 80) span.droppedAttributesCount = r.uint32();
    else if (tag === 96) span.droppedEventsCount = r.uint32();
    else if (tag === 112) span.droppedLinksCount = r.uint32();
    else skip(r, tag);
  }
  return ended(r, end, span);
}

function readEvent(r: Reader, end: number): OtlpEvent {
  const out = empty.event();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 9) out.timeUnixNano = fixed64(r);
    else if (tag === 18) out.name = text(r);
    else if (tag === 26) out.attributes.push(readKeyValue(r, delimited(r), 0));
    else if (tag === 32) out.droppedAttributesCount = r.uint32();
    else skip(r, tag);
  }
  return ended(r, end, out);
}

function readLink(r: Reader, end: number): OtlpLink {
  const out = empty.link();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) out.traceId = hexId(r);
    else if (tag === 18) out.spanId = hexId(r);
    else if (tag === 26) out.traceState = text(r);
    else if (tag === 34) out.attributes.push(readKeyValue(r, delimited(r), 0));
    else if (tag === 40) out.droppedAttributesCount = r.uint32();
    else skip(r, tag);
  }
  return ended(r, end, out);
}

function readStatus(r: Reader, end: number): OtlpStatus {
  const out = empty.status();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 18) out.message = text(r);
    else if (tag === 24) out.code = statusCodes[r.int32()] ?? 0;
    else skip(r, tag);
  }
  return ended(r, end, out);
}

function readKeyValue(r: Reader, end: number, depth: number): KeyValue {
  const out = empty.keyValue();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) out.key = text(r);
    else if (tag === 18) out.value = readAnyValue(r, delimited(r), depth);
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
    if (tag === 10) value = { kind: 'string', value: text(r) };
    else if (tag === 24) value = { kind: 'int', value: int64(r) };
    else if (tag === 33) value = { kind: 'double', value: r.double() };
    else if (tag === 16) value = { kind: 'bool', value: r.bool() };
    else if (tag === 42)
      value = { kind: 'array', values: readList(r, delimited(r), depth + 1, readAnyValue) };
    else if (tag === 50)
      value = { kind: 'kvlist', values: readList(r, delimited(r), depth + 1, readKeyValue) };
    else if (tag === 58) value = { kind: 'bytes', value: bytes(r) };
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
    if (tag === 10) out.push(read(r, delimited(r), depth));
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
