import { Readable } from 'node:stream';
import type { ClickHouseClient } from './clickhouse.ts';

// Rows written to ClickHouse in its RowBinary format, for a projection that has its values as raw
// bytes already (the spans projection copies text fields from the event's protobuf bytes as they
// are): no JavaScript string is made, escaped or joined per field, and ClickHouse reads lengths
// instead of scanning for escapes. The TabSeparated rows (clickhouse-insert.ts) cost the spans
// projection about 8 µs a span, most of the consumers' CPU after decoding.

/** Up to this many bytes, a value is copied byte by byte rather than by Buffer.copy. */
const shortCopy = 32;

/** A hex digit's value, from its ASCII code (either case). */
const nibble = (code: number): number => (code <= 57 ? code - 48 : (code | 32) - 87) & 0xf;

/** A growing buffer of RowBinary values, written in the table's column order. */
export class RowBinaryWriter {
  private buf = Buffer.allocUnsafe(64 * 1024);
  private pos = 0;

  /** The bytes written so far (a view, valid until the next write or `clear`). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** Empties the writer for the next rows, keeping its buffer. */
  clear(): void {
    this.pos = 0;
  }

  /** The bytes its buffer holds, written or not. */
  get capacity(): number {
    return this.buf.length;
  }

  private reserve(length: number): void {
    if (this.pos + length <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + length));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  uint8(value: number): void {
    this.reserve(1);
    this.buf[this.pos++] = value;
  }

  uint32(value: number): void {
    this.reserve(4);
    this.buf.writeUInt32LE(value >>> 0, this.pos);
    this.pos += 4;
  }

  /** A UInt64 from its low and high 32 bits. */
  uint64(low: number, high: number): void {
    this.reserve(8);
    this.buf.writeUInt32LE(low >>> 0, this.pos);
    this.buf.writeUInt32LE(high >>> 0, this.pos + 4);
    this.pos += 8;
  }

  /** An Array's length, before its elements (LEB128, as a String's). */
  arrayLength(count: number): void {
    this.varint(count);
  }

  private varint(value: number): void {
    this.reserve(5);
    let rest = value >>> 0;
    while (rest > 0x7f) {
      this.buf[this.pos++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.buf[this.pos++] = rest;
  }

  /** A String from UTF-8 bytes as they are. */
  stringBytes(source: Buffer, start: number, end: number): void {
    this.varint(end - start);
    this.reserve(end - start);
    this.copy(source, start, end);
  }

  /** A String of UTF-8 bytes as they are, all of `source`. */
  stringOf(source: Buffer): void {
    this.stringBytes(source, 0, source.length);
  }

  /** A String of `prefix` followed by UTF-8 bytes as they are. */
  prefixedStringBytes(prefix: Buffer, source: Buffer, start: number, end: number): void {
    this.varint(prefix.length + end - start);
    this.reserve(prefix.length + end - start);
    this.copy(prefix, 0, prefix.length);
    this.copy(source, start, end);
  }

  /** Bytes into room already reserved. */
  private copy(source: Buffer, start: number, end: number): void {
    // Ids and names are short: copied here, as Buffer.copy's native call costs more than they do.
    if (end - start <= shortCopy) for (let at = start; at < end; at += 1) this.buf[this.pos++] = source[at]!;
    else this.pos += source.copy(this.buf, this.pos, start, end);
  }

  /**
   * A FixedString(width) of the bytes the hex digits of `source` from `start` to `end` spell: an id
   * stored as its bytes (infra/migrations/clickhouse/0008). Ids reach the projection as admission's
   * lower-case hex of exactly that length; whatever else arrives still makes `width` bytes (digits
   * past them left out, missing ones as 0), so one bad id cannot shift the rows after it.
   */
  fixedHex(source: Buffer, start: number, end: number, width: number): void {
    this.reserve(width);
    const { buf } = this;
    for (let at = 0; at < width; at += 1) {
      const digit = start + 2 * at;
      buf[this.pos++] = digit + 1 < end ? (nibble(source[digit]!) << 4) | nibble(source[digit + 1]!) : 0;
    }
  }

  /** A String of the bytes the hex digits of `source` from `start` to `end` spell ('' for none). */
  hexString(source: Buffer, start: number, end: number): void {
    const width = (end - start) >> 1;
    this.varint(width);
    this.fixedHex(source, start, end, width);
  }

  string(value: string): void {
    const length = Buffer.byteLength(value);
    this.varint(length);
    this.reserve(length);
    this.pos += this.buf.write(value, this.pos, length, 'utf8');
  }

  /** A Nullable's marker: 1 for NULL (no value follows), 0 before its value. */
  nullMarker(isNull: boolean): void {
    this.uint8(isNull ? 1 : 0);
  }
}

/** Inserts RowBinary rows (their values in `columns`' order) in one INSERT. */
export async function insertRowBinary(
  clickhouse: ClickHouseClient,
  table: string,
  columns: readonly string[],
  rows: Buffer,
): Promise<void> {
  if (rows.length === 0) return;
  const { stream } = await clickhouse.exec({
    query: `INSERT INTO ${table} (${columns.join(', ')}) FORMAT RowBinary`,
    values: Readable.from([rows], { objectMode: false }),
  });
  // The answer has no body worth reading; it is drained so the connection is free again.
  for await (const _ of stream);
}
