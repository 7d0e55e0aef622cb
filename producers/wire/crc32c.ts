// CRC-32C (Castagnoli), the checksum of a record batch (kafka.apache.org/documentation, "Record
// Batch"). Table-driven: batches are small next to the cost of sending them.
const table = new Uint32Array(256);
for (let index = 0; index < 256; index += 1) {
  let crc = index;
  for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  table[index] = crc >>> 0;
}

export function crc32c(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (let index = 0; index < bytes.length; index += 1)
    crc = table[(crc ^ bytes[index]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
