import { randomFillSync } from 'node:crypto';

// Request ids (`req_` and 24 hex digits) are cut from a pooled random buffer: a randomBytes call
// per request allocates a crypto job the garbage collector has to finalize, which lengthened its
// pauses at 500 requests/s (bench/inference).
const idBytes = 12;
const pool = Buffer.alloc(idBytes * 256);
let next = pool.length;

export function newRequestId(): string {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  const id = pool.toString('hex', next, next + idBytes);
  next += idBytes;
  return `req_${id}`;
}
