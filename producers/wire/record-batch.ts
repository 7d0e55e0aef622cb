import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { Writer } from './codec.ts';
import { crc32c } from './crc32c.ts';

// A record batch, magic 2 (kafka.apache.org/documentation, "Record Batch"), from an idempotent
// producer: its producer id and epoch, and the partition's sequence number of its first record.

const gzipAsync = promisify(gzip);

export interface OutgoingRecord {
  key: Buffer | null;
  value: Buffer | null;
  headers: readonly (readonly [string, Buffer])[];
  timestampMs: number;
}

export interface BatchProducer {
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
}

const gzipAttribute = 1;
// Offsets in the batch header: the length after itself, and the CRC over what follows it.
const batchLengthAt = 8;
const crcAt = 17;
const attributesAt = 21;

function encodeRecord(records: Writer, record: OutgoingRecord, offsetDelta: number, baseTimestamp: number) {
  const body = new Writer(64 + (record.value?.length ?? 0) + (record.key?.length ?? 0));
  body.int8(0); // attributes: unused
  body.varint(record.timestampMs - baseTimestamp);
  body.varint(offsetDelta);
  if (record.key === null) body.varint(-1);
  else body.varint(record.key.length).raw(record.key);
  if (record.value === null) body.varint(-1);
  else body.varint(record.value.length).raw(record.value);
  body.varint(record.headers.length);
  for (const [name, value] of record.headers) {
    const nameBytes = Buffer.from(name, 'utf8');
    body.varint(nameBytes.length).raw(nameBytes).varint(value.length).raw(value);
  }
  records.varint(body.size).raw(body.bytesWritten());
}

export async function encodeRecordBatch(
  records: readonly OutgoingRecord[],
  producer: BatchProducer,
  options: { gzip: boolean },
): Promise<Buffer> {
  const baseTimestamp = records[0]?.timestampMs ?? Date.now();
  let maxTimestamp = baseTimestamp;
  const encoded = new Writer(256);
  records.forEach((record, offsetDelta) => {
    encodeRecord(encoded, record, offsetDelta, baseTimestamp);
    if (record.timestampMs > maxTimestamp) maxTimestamp = record.timestampMs;
  });
  const payload = options.gzip ? await gzipAsync(encoded.bytesWritten()) : encoded.bytesWritten();

  const batch = new Writer(61 + payload.length);
  batch.int64(0n); // base offset: the broker assigns it
  batch.int32(0); // batch length, patched below
  batch.int32(-1); // partition leader epoch: set by the broker
  batch.int8(2); // magic
  batch.int32(0); // CRC, patched below
  batch.int16(options.gzip ? gzipAttribute : 0);
  batch.int32(records.length - 1); // last offset delta
  batch.int64(BigInt(baseTimestamp));
  batch.int64(BigInt(maxTimestamp));
  batch.int64(producer.producerId);
  batch.int16(producer.producerEpoch);
  batch.int32(producer.baseSequence);
  batch.int32(records.length);
  batch.raw(payload);
  const bytes = batch.bytesWritten();
  batch.patchInt32(batchLengthAt, bytes.length - batchLengthAt - 4);
  batch.patchUint32(crcAt, crc32c(bytes.subarray(attributesAt)));
  return bytes;
}
