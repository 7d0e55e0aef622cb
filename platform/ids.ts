import { randomFillSync } from 'node:crypto';

// The platform's ids: a prefix saying what it names, then 24 hex digits (96 random bits), e.g.
// `req_…`, `org_…`, `key_…`. Cut from a pooled random buffer: a randomBytes call per id allocates
// a crypto job the garbage collector has to finalize, which lengthened its pauses at 500
// inference requests/s (bench/inference).
const idBytes = 12;
const pool = Buffer.alloc(idBytes * 256);
let next = pool.length;

export function newId(prefix: string): string {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  const id = pool.toString('hex', next, next + idBytes);
  next += idBytes;
  return `${prefix}_${id}`;
}
