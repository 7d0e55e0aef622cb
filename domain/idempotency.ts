// The Idempotency-Key header (Stripe's convention), one rule for every request that takes it: a
// title or preview (spec 000; README "Title and preview text") and the placing of a run (issue
// 50). A key names one request of the org for 24 hours. A retry with the same key and the same
// request is that request: its first id, and its first answer where one was kept, never a second
// request billed again. The same key with another request (another route, model or body) is
// refused with 422 `idempotency_key_reused` rather than guessed at. Keys are the org's, whichever
// route first used them. Where a retry is stored: stores/idempotency-keys.ts.

/** A key is the same request for this long after its first use (as Stripe's). */
export const idempotencyKeyLifetimeMs = 24 * 60 * 60 * 1000;

/** Printable ASCII, 1 to 255 characters, as Stripe's keys; a UUID is the usual choice. */
export const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;

/** The header's name, as a 422 names it (`param`). */
export const idempotencyKeyHeader = 'Idempotency-Key';

/** The header as sent: no key, or one; anything else is refused, the 422 naming the header. */
export function readIdempotencyKey(
  header: string | string[] | undefined,
): { ok: true; value: string | undefined } | { ok: false; message: string } {
  if (header === undefined) return { ok: true, value: undefined };
  if (typeof header === 'string' && idempotencyKeyPattern.test(header)) return { ok: true, value: header };
  return {
    ok: false,
    message: `Send one ${idempotencyKeyHeader} of 1 to 255 printable ASCII characters (a UUID, say), or none.`,
  };
}
