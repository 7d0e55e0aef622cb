import { randomUUID } from 'node:crypto';
import type { AdmissionLimits } from '../../domain/tracing/admission.ts';
import type { PublishedSpan, SpanEvent } from '../../domain/tracing/events.ts';
import { normalizeSpan, prepareResource } from '../../domain/tracing/normalize.ts';
import type { OtlpTraceRequest } from '../../domain/tracing/otlp.ts';
import { ingestPhaseDuration } from '../../platform/metrics.ts';
import type { PgPool } from '../../platform/postgres.ts';
import type { EventProducer } from '../../producers/producer.ts';
import { publishSpanEvents } from '../../producers/spans.ts';
import type { AdmissionLeases } from '../../stores/admission-lease.ts';
import { recordDeletion, traceKnown } from '../../stores/ingest-ledger.ts';

export interface IngestDeps {
  pool: PgPool;
  producer: EventProducer;
  leases: AdmissionLeases;
  /** How long a group may wait for the org's lease held by another API process. */
  leaseWaitMs: number;
  limits: AdmissionLimits;
  now?: () => Date;
}

/**
 * A request's spans as admission takes them: the ids now, the normalized spans on demand, so the
 * ledger read (which needs only the ids) is in flight while the spans are normalized.
 */
export interface PendingSpans {
  traceIds: string[];
  spanIds: string[];
  normalize(): PublishedSpan[];
}

export function pendingSpans(request: OtlpTraceRequest): PendingSpans {
  const traceIds: string[] = [];
  const spanIds: string[] = [];
  for (const resourceSpans of request.resourceSpans)
    for (const scopeSpans of resourceSpans.scopeSpans)
      for (const span of scopeSpans.spans) {
        traceIds.push(span.traceId);
        spanIds.push(span.spanId);
      }
  return { traceIds, spanIds, normalize: () => normalizeRequest(request) };
}

/** Every span of the request, normalized (redacted, read, cut), in the order sent. */
export function normalizeRequest(request: OtlpTraceRequest): PublishedSpan[] {
  const spans: PublishedSpan[] = [];
  for (const resourceSpans of request.resourceSpans) {
    const resource = prepareResource(resourceSpans.resource.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans) {
      for (const span of scopeSpans.spans) {
        spans.push(normalizeSpan(span, resource, scopeSpans.scope));
      }
    }
  }
  return spans;
}

/**
 * A trace's spans from one request go in events of at most about 1 MiB of span data (a span is at
 * most `limits.spanBytes`), so no Kafka message comes near the broker's size limit, whatever the
 * request.
 */
const maxEventBytes = 1024 * 1024;

export function chunkBySize(spans: PublishedSpan[]): PublishedSpan[][] {
  const chunks: PublishedSpan[][] = [];
  let chunk: PublishedSpan[] = [];
  let bytes = 0;
  for (const span of spans) {
    if (chunk.length > 0 && bytes + span.sizeBytes > maxEventBytes) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(span);
    bytes += span.sizeBytes;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

function groupByTrace(spans: PublishedSpan[]): Map<string, PublishedSpan[]> {
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
    const started = performance.now();
    try {
      normalized.push(request.normalize());
    } catch (error) {
      normalized.push(new NormalizationFailed(error));
    }
    ingestPhaseDuration.observe({ phase: 'normalize' }, (performance.now() - started) / 1000);
  }
  return normalized;
}

/**
 * The SpansReceived events of a group's accepted spans: one trace's spans per event, in events of
 * at most about 1 MiB, each saying when its trace was first received (`now` for a new trace).
 */
export function spanEvents(
  orgId: string,
  now: Date,
  accepted: PublishedSpan[],
  traceFirstReceived: ReadonlyMap<string, Date>,
): SpanEvent[] {
  return [...groupByTrace(accepted)].flatMap(([traceId, traceSpans]) =>
    chunkBySize(traceSpans).map((chunk) => ({
      type: 'SpansReceived' as const,
      eventId: randomUUID(),
      orgId,
      traceId,
      occurredAt: now,
      traceFirstReceivedAt: traceFirstReceived.get(traceId) ?? now,
      spans: chunk,
    })),
  );
}

/**
 * Deletes a trace (001, "Deleting a trace"), with the org's lease held like an admission: if the
 * ledger knows the trace, TraceDeleted is published (it removes the trace's spans from the read
 * model) and then the ledger forgets the trace and remembers its deletion. False for a trace the
 * org does not have. A deletion recorded only in part is finished by the caller's retry.
 */
export async function deleteTrace(deps: IngestDeps, orgId: string, traceId: string): Promise<boolean> {
  const now = deps.now?.() ?? new Date();
  return deps.leases.hold(orgId, deps.leaseWaitMs, async (lease) => {
    if (!(await traceKnown(deps.pool, orgId, traceId))) return false;
    await publishSpanEvents(deps.producer, [
      { type: 'TraceDeleted', eventId: randomUUID(), orgId, traceId, occurredAt: now },
    ]);
    await recordDeletion(deps.pool, lease, traceId, now);
    return true;
  });
}
