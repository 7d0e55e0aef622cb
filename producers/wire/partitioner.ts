// The partition of a keyed message, as the Java client's (and kafkajs') default partitioner
// chooses it: murmur2 of the key, made positive, modulo the partition count. Every producer of
// a topic must agree, or one org's events would land on two partitions.

export function murmur2(data: Buffer): number {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = 0x9747b28c ^ length;
  const whole = length - (length % 4);
  for (let at = 0; at < whole; at += 4) {
    let k = data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16) | (data[at + 3]! << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  // The tail's bytes, highest first, as the Java switch falls through its cases.
  const tail = length % 4;
  if (tail === 3) h ^= data[whole + 2]! << 16;
  if (tail >= 2) h ^= data[whole + 1]! << 8;
  if (tail >= 1) {
    h ^= data[whole]!;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h;
}

export function partitionForKey(key: Buffer, partitionCount: number): number {
  return (murmur2(key) & 0x7fffffff) % partitionCount;
}
