// A usage event's identity (issue: delivery semantics fit for money): its request id. A request
// published twice, because a publish timed out after Kafka wrote it and the caller retried with
// the same Idempotency-Key (domain/idempotency.ts), is one request, counted once by every projection.

/** Counted request ids are remembered this long: longer than any retry can come. */
export const countedRequestsKeptMs = 7 * 24 * 60 * 60 * 1000;
