import type { AdmissionLimits } from '../../domain/tracing/admission.ts';
import type { PublishedSpan } from '../../domain/tracing/events.ts';
import { normalizeSpan, prepareResource } from '../../domain/tracing/normalize.ts';
import type { OtlpTraceRequest } from '../../domain/tracing/otlp.ts';
import type { PriceOf } from '../../domain/tracing/prices.ts';
import { ingestPhaseDuration } from '../../platform/metrics.ts';
import type { PgPool } from '../../platform/postgres.ts';
import type { EventProducer } from '../../producers/producer.ts';
import type { AdmissionLeases } from '../../stores/admission-lease.ts';

export interface IngestDeps {
  pool: PgPool;
  /** Where the ledger's record waits for Kafka's acknowledgement, holding its connection meanwhile. */
  recordPool: PgPool;
  producer: EventProducer;
  leases: AdmissionLeases;
  /** How long a group may wait for the org's lease held by another API process. */
  leaseWaitMs: number;
  /** How long an org's lease is kept once its work is done, for the next group to find it held. */
  leaseIdleMs?: number;
  limits: AdmissionLimits;
  now?: () => Date;
  /**
   * The store admission needs that was last seen away (the dependency watch's answer), if any: a
   * group that would start meanwhile fails at once rather than wait on it, as a new request would.
   */
  away?: () => string | undefined;
}

/**
 * A request's spans as admission takes them: the ids now, the normalized spans on demand, so the
 * ledger read (which needs only the ids) is in flight while the spans are normalized. A request
 * waiting behind its org's running group is normalized meanwhile (`prepare`, admission-queue.ts),
 * when the event loop would otherwise wait on Kafka and Postgres; its group then finds it done.
 */
export interface PendingSpans {
  traceIds: string[];
  spanIds: string[];
  /** The normalized spans, normalized once; throws NormalizationFailed, every time, if they cannot be. */
  normalize(): PublishedSpan[];
  /** Normalizes now, if not yet done; a failure is kept for `normalize` to throw. */
  prepare(): void;
}

export function pendingSpans(request: OtlpTraceRequest, priceOf?: PriceOf): PendingSpans {
  const traceIds: string[] = [];
  const spanIds: string[] = [];
  for (const resourceSpans of request.resourceSpans)
    for (const scopeSpans of resourceSpans.scopeSpans)
      for (const span of scopeSpans.spans) {
        traceIds.push(span.traceId);
        spanIds.push(span.spanId);
      }
  let normalized: PublishedSpan[] | NormalizationFailed | undefined;
  // The decoded request is let go once normalized: it would otherwise live as long as the request
  // waits for its group and its answer, and every young-generation collection meanwhile would
  // copy it.
  let decoded: OtlpTraceRequest | undefined = request;
  const prepare = () => {
    if (!decoded) return;
    const started = performance.now();
    try {
      normalized = normalizeRequest(decoded, priceOf);
    } catch (error) {
      normalized = new NormalizationFailed(error);
    }
    decoded = undefined;
    ingestPhaseDuration.observe({ phase: 'normalize' }, (performance.now() - started) / 1000);
  };
  return {
    traceIds,
    spanIds,
    prepare,
    normalize() {
      prepare();
      if (normalized instanceof NormalizationFailed) throw normalized;
      return normalized!;
    },
  };
}

/**
 * Every span of the request, normalized (redacted, read, cut), in the order sent; its generations
 * priced at `priceOf`, the org's prices when the request came.
 */
export function normalizeRequest(request: OtlpTraceRequest, priceOf?: PriceOf): PublishedSpan[] {
  const spans: PublishedSpan[] = [];
  for (const resourceSpans of request.resourceSpans) {
    const resource = prepareResource(resourceSpans.resource.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans) {
      for (const span of scopeSpans.spans) {
        spans.push(normalizeSpan(span, resource, scopeSpans.scope, priceOf));
      }
    }
  }
  return spans;
}

/** The accepted spans by trace, in the order each trace's first span came. */
export function groupByTrace(spans: PublishedSpan[]): Map<string, PublishedSpan[]> {
  const byTrace = new Map<string, PublishedSpan[]>();
  for (const span of spans) {
    const traceSpans = byTrace.get(span.traceId) ?? [];
    traceSpans.push(span);
    byTrace.set(span.traceId, traceSpans);
  }
  return byTrace;
}

/** A request's spans could not be normalized: a fault of ours, not an unavailable store. */
export class NormalizationFailed extends Error {
  constructor(cause: unknown) {
    super("the request's spans could not be normalized", { cause });
    this.name = 'NormalizationFailed';
  }
}

/** Gives the event loop a turn: other requests are served between two normalizations. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Each request's spans normalized, one request per turn of the event loop (the first turn also
 * lets the pool send a query just made: it checks out a client on the next tick); a request whose
 * normalization failed gets its error, and the others go on without it.
 */
export async function normalizeEach(requests: PendingSpans[]): Promise<(PublishedSpan[] | Error)[]> {
  const normalized: (PublishedSpan[] | Error)[] = [];
  for (const request of requests) {
    await nextTurn();
    try {
      normalized.push(request.normalize());
    } catch (error) {
      normalized.push(error instanceof NormalizationFailed ? error : new NormalizationFailed(error));
    }
  }
  return normalized;
}
