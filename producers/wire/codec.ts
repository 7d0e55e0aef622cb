// Kafka's primitive types (kafka.apache.org/protocol, "Protocol Primitive Types"), big-endian,
// written into one growing buffer so a request leaves in a single socket write.

export class Writer {
  private buffer: Buffer;
  private length = 0;

  constructor(initialBytes = 256) {
    this.buffer = Buffer.allocUnsafe(initialBytes);
  }

  get size(): number {
    return this.length;
  }

  /** Makes room for `bytes` more and returns where they go; call it before touching `buffer`. */
  private room(bytes: number): number {
    const at = this.length;
    if (at + bytes > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, at + bytes));
      this.buffer.copy(grown, 0, 0, at);
      this.buffer = grown;
    }
    this.length += bytes;
    return at;
  }

  int8(value: number): this {
    const at = this.room(1);
    this.buffer.writeInt8(value, at);
    return this;
  }

  int16(value: number): this {
    const at = this.room(2);
    this.buffer.writeInt16BE(value, at);
    return this;
  }

  int32(value: number): this {
    const at = this.room(4);
    this.buffer.writeInt32BE(value, at);
    return this;
  }

  int64(value: bigint): this {
    const at = this.room(8);
    this.buffer.writeBigInt64BE(value, at);
    return this;
  }

  string(value: string): this {
    const bytes = Buffer.byteLength(value);
    this.int16(bytes);
    const at = this.room(bytes);
    this.buffer.write(value, at, bytes, 'utf8');
    return this;
  }

  nullableString(value: string | null): this {
    return value === null ? this.int16(-1) : this.string(value);
  }

  /** BYTES: an int32 length, then the bytes. */
  bytes(value: Buffer): this {
    return this.int32(value.length).raw(value);
  }

  raw(value: Buffer): this {
    const at = this.room(value.length);
    value.copy(this.buffer, at);
    return this;
  }

  /** VARINT and VARLONG: zig-zag, then 7 bits a byte; numbers up to 2^53 (record fields). */
  varint(value: number): this {
    let rest = value >= 0 ? value * 2 : -value * 2 - 1;
    while (rest >= 0x80) {
      const at = this.room(1);
      this.buffer[at] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    const at = this.room(1);
    this.buffer[at] = rest;
    return this;
  }

  /** Writes an int32 over bytes already written (lengths and checksums known only at the end). */
  patchInt32(at: number, value: number): void {
    this.buffer.writeInt32BE(value, at);
  }

  patchUint32(at: number, value: number): void {
    this.buffer.writeUInt32BE(value, at);
  }

  /** The bytes written so far (a view, not a copy). */
  bytesWritten(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

export class Reader {
  constructor(
    private readonly buffer: Buffer,
    private offset = 0,
  ) {}

  int8(): number {
    const value = this.buffer.readInt8(this.offset);
    this.offset += 1;
    return value;
  }

  int16(): number {
    const value = this.buffer.readInt16BE(this.offset);
    this.offset += 2;
    return value;
  }

  int32(): number {
    const value = this.buffer.readInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  int64(): bigint {
    const value = this.buffer.readBigInt64BE(this.offset);
    this.offset += 8;
    return value;
  }

  boolean(): boolean {
    return this.int8() !== 0;
  }

  nullableString(): string | null {
    const length = this.int16();
    if (length < 0) return null;
    const value = this.buffer.toString('utf8', this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  string(): string {
    return this.nullableString() ?? '';
  }

  array<T>(readItem: (reader: Reader) => T): T[] {
    const count = this.int32();
    const items: T[] = [];
    for (let index = 0; index < count; index += 1) items.push(readItem(this));
    return items;
  }
}
