// A usage event's identity (issue: delivery semantics fit for money): its request id. A request
// published twice, because a publish timed out after Kafka wrote it and the caller retried with
// the same Idempotency-Key, is one request, counted once by every projection.

/** An Idempotency-Key is the same request for this long after its first use (as Stripe's). */
export const idempotencyKeyLifetimeMs = 24 * 60 * 60 * 1000;

/** Counted request ids are remembered this long: longer than any retry can come. */
export const countedRequestsKeptMs = 7 * 24 * 60 * 60 * 1000;

/** Printable ASCII, 1 to 255 characters, as Stripe's keys; a UUID is the usual choice. */
export const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;
