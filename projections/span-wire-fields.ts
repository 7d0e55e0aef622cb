import type protobuf from 'protobufjs';
import { spanKinds } from '../domain/tracing/span.ts';
import { spanFields as span, spanType } from '../schemas/events/spans-fields.ts';
import { wireType } from '../schemas/protobuf-wire.ts';

/** The bytes of a trace id and of a span id, as the read model stores them (FixedString). */
export const traceIdBytes = 16;
export const spanIdBytes = 8;

// One span of a span event, read where it lies in the event's protobuf bytes: the spans
// projection's row (spans-rowbinary.ts) and its trace's fragment (trace-fragments-rowbinary.ts)
// both take their values from here. Field numbers come from spans.proto (schemas/events/spans-fields.ts).

/** The kind column's Enum8 values (0002_spans.sql), in spanKinds' order: the bytes of value n at n - 1. */
export const kindBytes = spanKinds.map((kind) => Buffer.from(kind));
export const spanKindCode = spanKinds.indexOf('span') + 1;
export const generationKindCode = spanKinds.indexOf('generation') + 1;

/** The Span fields read as 64 bits (int64, fixed64); the other varints are 32 bits or booleans. */
const longFields = new Uint8Array(64);
for (const field of spanType.fieldsArray)
  if (field.id < 64 && /64$/.test(field.type)) longFields[field.id] = 1;

/**
 * One span's fields as read: where each text is, each number (low and high 32 bits), and which
 * fields were there. Read without an allocation per field: this runs for every span consumed.
 */
export class SpanFields {
  readonly starts = new Int32Array(64);
  readonly ends = new Int32Array(64);
  readonly lows = new Uint32Array(64);
  readonly highs = new Uint32Array(64);
  /** The span a field was last read for: a field is present when it equals `current`. */
  readonly seen = new Uint32Array(64);
  current = 0;

  read(r: protobuf.Reader, start: number, end: number): void {
    this.current += 1;
    r.pos = start;
    while (r.pos < end) {
      const tag = r.uint32();
      const id = tag >>> 3;
      const type = tag & 7;
      if (id >= 64) {
        r.skipType(type);
        continue;
      }
      if (type === wireType.delimited) {
        const length = r.uint32();
        this.starts[id] = r.pos;
        this.ends[id] = r.pos + length;
        r.pos += length;
      } else if (type === wireType.fixed64) {
        this.lows[id] = r.fixed32();
        this.highs[id] = r.fixed32();
      } else if (type === wireType.varint && longFields[id]) this.varint64(r, id);
      else if (type === wireType.varint) {
        this.lows[id] = r.uint32();
        this.highs[id] = 0;
      } else {
        r.skipType(type);
        continue;
      }
      this.seen[id] = this.current;
    }
    if (r.pos !== end) throw new Error('a field runs past its message');
  }

  /** A 64-bit varint into the field's low and high 32 bits, without making a Long. */
  private varint64(r: protobuf.Reader, id: number): void {
    const bytes = r.buf;
    let low = 0;
    let high = 0;
    for (let shift = 0; ; shift += 7) {
      if (r.pos >= r.len || shift > 63) throw new Error('a varint runs past its message');
      const byte = bytes[r.pos++]!;
      if (shift < 28) low |= (byte & 0x7f) << shift;
      else if (shift === 28) {
        low |= (byte & 0x0f) << 28;
        high |= (byte & 0x7f) >>> 4;
      } else high |= (byte & 0x7f) << (shift - 32);
      if (byte < 0x80) break;
    }
    this.lows[id] = low >>> 0;
    this.highs[id] = high >>> 0;
  }

  has(id: number): boolean {
    return this.seen[id] === this.current;
  }

  /** Whether a text field is there and not empty (a text column's value is then its bytes, else ''). */
  hasText(id: number): boolean {
    return this.has(id) && this.ends[id]! > this.starts[id]!;
  }

  /** Where a text field's bytes start, or 0 when it is absent or empty (with textEnd, none). */
  textStart(id: number): number {
    return this.hasText(id) ? this.starts[id]! : 0;
  }

  /** Where a text field's bytes end, or 0 when it is absent or empty. */
  textEnd(id: number): number {
    return this.hasText(id) ? this.ends[id]! : 0;
  }

  /** A number field; 0 when absent. */
  number(id: number): number {
    return this.has(id) ? this.lows[id]! : 0;
  }

  /** A 64-bit field's low 32 bits; 0 when absent. */
  low(id: number): number {
    return this.has(id) ? this.lows[id]! : 0;
  }

  /** A 64-bit field's high 32 bits; 0 when absent. */
  high(id: number): number {
    return this.has(id) ? this.highs[id]! : 0;
  }

  /** The status column's value: OTLP's 1 (ok) or 2 (error), else 0 (as spanFromWire). */
  statusCode(): number {
    const status = this.number(span.statusCode);
    return status === 1 || status === 2 ? status : 0;
  }

  /** The kind column's Enum8 value: the kind whose UTF-8 bytes are there; `span` for any other (as spanFromWire). */
  kindCode(bytes: Buffer): number {
    if (!this.has(span.kind)) return spanKindCode;
    const start = this.starts[span.kind]!;
    const end = this.ends[span.kind]!;
    // Compared here rather than by Buffer.compare, whose native call costs more than a kind's bytes.
    for (let index = 0; index < kindBytes.length; index += 1) {
      const kind = kindBytes[index]!;
      if (kind.length !== end - start) continue;
      let at = 0;
      while (at < kind.length && kind[at] === bytes[start + at]) at += 1;
      if (at === kind.length) return index + 1;
    }
    return spanKindCode;
  }
}
