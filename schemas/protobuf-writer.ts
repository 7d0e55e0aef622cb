import { wireType } from './protobuf-wire.ts';

/** How many bytes a varint of `value` takes. */
const varintBytes = (value: number) =>
  value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;

/**
 * A non-negative safe integer as a varint at `at` (7 bits a byte, least significant first, at most
 * 8 bytes); returns where it ends.
 */
function writeVarint(buffer: Buffer, at: number, value: number): number {
  let next = at;
  let rest = value;
  while (rest >= 0x80) {
    buffer[next++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  buffer[next++] = rest;
  return next;
}

const viewOf = (buffer: Buffer) => new DataView(buffer.buffer, buffer.byteOffset, buffer.length);

/**
 * Protobuf's encoding written straight into one Buffer, for the span events (spans-encode.ts).
 * protobufjs's writer queues an object per field written and replays them once the size is known:
 * under eight telemetrygen exporters that was 37 % of the bytes the API allocated. Encoding a
 * request's events (bench/normalize's encode phase, alternating runs) took 3.0 and 3.6 µs an LLM
 * span with protobufjs against 2.0 and 2.2 here; telemetrygen's spans, 2.4 against 0.7 to 0.8.
 *
 * A nested message is written in place behind a one-byte length, moved along if its length needs
 * more; a string's UTF-8 is written by Buffer itself. Field numbers and the choice of what to write
 * are the caller's; numbers must be non-negative safe integers, and anything else is refused, not
 * wrapped, so a wrong value cannot reach a consumer as another.
 */
export class ProtobufWriter {
  private buffer: Buffer;
  /** The buffer's view for fixed64s: Buffer's own writeBigUInt64LE makes two BigInts a call. */
  private view: DataView;
  private at: number;

  /** Starts with `header` (a Confluent frame, say) and room for `expectedBytes` more. */
  constructor(header: Uint8Array, expectedBytes: number) {
    this.buffer = Buffer.allocUnsafe(header.length + Math.max(expectedBytes, 64));
    this.view = viewOf(this.buffer);
    this.buffer.set(header, 0);
    this.at = header.length;
  }

  /** The bytes written; the writer is not to be used after. */
  finish(): Buffer {
    return this.buffer.subarray(0, this.at);
  }

  /** A string field (also written when empty: proto3 `optional` fields are present so). */
  string(field: number, text: string): void {
    this.tag(field, wireType.delimited);
    const most = text.length * 3;
    if (most < 0x80) {
      // At most 127 bytes: a one-byte length, set once Buffer says how many it wrote.
      this.room(1 + most);
      const written = this.buffer.write(text, this.at + 1);
      this.buffer[this.at] = written;
      this.at += 1 + written;
      return;
    }
    const length = Buffer.byteLength(text);
    this.varint(length);
    this.room(length);
    this.at += this.buffer.write(text, this.at);
  }

  /** A string field unless empty, proto3's default, which a reader gives for an absent field. */
  nonEmptyString(field: number, text: string): void {
    if (text.length > 0) this.string(field, text);
  }

  /** An integer field (int32, int64, uint32, uint64 or bool as 0 and 1) unless 0. */
  nonZeroInteger(field: number, value: number): void {
    if (value !== 0) this.integer(field, value);
  }

  /** An integer field, also when 0 (proto3 `optional`). */
  integer(field: number, value: number): void {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new RangeError(`protobuf field ${field}: ${value} is not a non-negative safe integer`);
    this.tag(field, wireType.varint);
    this.varint(value);
  }

  /** A fixed64 field unless 0. */
  nonZeroFixed64(field: number, value: bigint): void {
    if (value === 0n) return;
    if (value < 0n || value > 0xffff_ffff_ffff_ffffn)
      throw new RangeError(`protobuf field ${field}: ${value} does not fit a fixed64`);
    this.tag(field, wireType.fixed64);
    this.room(8);
    this.view.setBigUint64(this.at, value, true);
    this.at += 8;
  }

  /** A message field, its fields written by `writeFields`. */
  message(field: number, writeFields: () => void): void {
    this.tag(field, wireType.delimited);
    this.room(1);
    const start = this.at + 1;
    this.at = start;
    writeFields();
    const length = this.at - start;
    const extra = varintBytes(length) - 1;
    if (extra > 0) {
      this.room(extra);
      this.buffer.copyWithin(start + extra, start, this.at);
    }
    // The room is there: the length's bytes were reserved or made above.
    writeVarint(this.buffer, start - 1, length);
    this.at = start + extra + length;
  }

  private tag(field: number, type: number): void {
    this.varint(field * 8 + type);
  }

  private varint(value: number): void {
    this.room(8);
    this.at = writeVarint(this.buffer, this.at, value);
  }

  /** At least `bytes` more after the position, the buffer doubled (and copied) when short. */
  private room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
    this.view = viewOf(grown);
  }
}
