import { z } from 'zod';

// A caller's text that holds U+0000 (NUL). Postgres stores no NUL in text or jsonb: it refuses
// the whole statement, which answered 500, and refuses the projection's write of an event that
// holds one, which dead-letters the event. A process's arguments and environment are C strings,
// which end at the first NUL. So every field that reaches Postgres or a process is refused at
// the edge, as its surface's 422 `invalid_request` naming the field: its schema uses this type.
//
// ClickHouse stores NUL, and a span's attributes may hold one as sent, so fields that only
// filter ClickHouse take it (and find what holds it).

const nul = '\u0000';

export const nulRefused = 'send text without the NUL character (U+0000)';

export function holdsNul(text: string): boolean {
  return text.includes(nul);
}

/** A string without NUL; `error` is the message for a value that is not a string. */
export function textWithoutNul(error?: string) {
  return z.string(error).refine((text) => !holdsNul(text), nulRefused);
}
