import { randomBytes } from 'node:crypto';
import { Partitioners } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { Reader, Writer } from '../../../producers/wire/codec.ts';
import { crc32c } from '../../../producers/wire/crc32c.ts';
import { partitionForKey } from '../../../producers/wire/partitioner.ts';
import { encodeRecordBatch } from '../../../producers/wire/record-batch.ts';

describe('the producer wire format', () => {
  it('partitions keys as the Java client and kafkajs do', () => {
    const kafkajs = Partitioners.DefaultPartitioner();
    for (let length = 0; length < 64; length += 1) {
      for (const partitionCount of [1, 4, 7]) {
        const key = randomBytes(length);
        const partitionMetadata = Array.from({ length: partitionCount }, (_, partitionId) => ({
          partitionId,
          leader: 1,
          partitionErrorCode: 0,
          replicas: [1],
          isr: [1],
        }));
        expect(partitionForKey(key, partitionCount)).toBe(
          kafkajs({ topic: 't', partitionMetadata, message: { key, value: null } }),
        );
      }
    }
    expect(partitionForKey(Buffer.from('org_1'), 4)).toBe(partitionForKey(Buffer.from('org_1'), 4));
  });

  it('checksums with CRC-32C', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
    expect(crc32c(Buffer.alloc(0))).toBe(0);
  });

  it('writes zig-zag varints and reads back what it wrote', () => {
    const bytes = (value: number) => [...new Writer(8).varint(value).bytesWritten()];
    expect(bytes(0)).toEqual([0]);
    expect(bytes(-1)).toEqual([1]);
    expect(bytes(1)).toEqual([2]);
    expect(bytes(63)).toEqual([126]);
    expect(bytes(64)).toEqual([128, 1]);
    expect(bytes(-65)).toEqual([129, 1]);
    const written = new Writer(2).int16(-2).int32(70_000).int64(-5n).string('orrery').nullableString(null);
    const reader = new Reader(Buffer.from(written.bytesWritten()));
    expect([
      reader.int16(),
      reader.int32(),
      reader.int64(),
      reader.string(),
      reader.nullableString(),
    ]).toEqual([-2, 70_000, -5n, 'orrery', null]);
  });

  it('frames a record batch: its length, magic 2, producer id and sequence, and a checksum over the rest', async () => {
    const records = [
      {
        key: Buffer.from('k'),
        value: Buffer.from('first'),
        headers: [['h', Buffer.from('v')] as const],
        timestampMs: 1_000,
      },
      { key: null, value: Buffer.from('second'), headers: [], timestampMs: 1_005 },
    ];
    const batch = await encodeRecordBatch(
      records,
      { producerId: 42n, producerEpoch: 3, baseSequence: 7 },
      { gzip: false },
    );
    const reader = new Reader(batch);
    expect(reader.int64()).toBe(0n);
    expect(reader.int32()).toBe(batch.length - 12);
    expect(reader.int32()).toBe(-1);
    expect(reader.int8()).toBe(2);
    expect(batch.readUInt32BE(17)).toBe(crc32c(batch.subarray(21)));
    reader.int32(); // the checksum
    expect(reader.int16()).toBe(0);
    expect(reader.int32()).toBe(1); // last offset delta
    expect([reader.int64(), reader.int64()]).toEqual([1_000n, 1_005n]);
    expect([reader.int64(), reader.int16(), reader.int32(), reader.int32()]).toEqual([42n, 3, 7, 2]);
    const gzipped = await encodeRecordBatch(
      records,
      { producerId: 42n, producerEpoch: 3, baseSequence: 7 },
      { gzip: true },
    );
    expect(gzipped.readInt16BE(21)).toBe(1);
  });
});
