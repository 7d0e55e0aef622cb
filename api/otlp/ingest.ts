import { randomUUID } from 'node:crypto';
import {
  type Admission,
  type AdmissionLimits,
  decideAdmission,
  factsAfter,
  type LedgerFacts,
} from '../../domain/tracing/admission.ts';
import type { PublishedSpan } from '../../domain/tracing/events.ts';
import { normalizeSpan, prepareResource } from '../../domain/tracing/normalize.ts';
import type { OtlpTraceRequest } from '../../domain/tracing/otlp.ts';
import { ingestPhaseDuration, spansReceived } from '../../platform/metrics.ts';
import type { PgPool } from '../../platform/postgres.ts';
import type { EventProducer } from '../../producers/producer.ts';
import { publishSpanEvents, publishSpansReceived } from '../../producers/spans.ts';
import type { AdmissionLeases } from '../../stores/admission-lease.ts';
import { readLedger, recordAccepted, recordDeletion, traceKnown } from '../../stores/ingest-ledger.ts';

export interface IngestDeps {
  pool: PgPool;
  /** Where the ledger's record waits for Kafka's acknowledgement, holding its connection meanwhile. */
  recordPool: PgPool;
  producer: EventProducer;
  leases: AdmissionLeases;
  /** How long a group may wait for the org's lease held by another API process. */
  leaseWaitMs: number;
  limits: AdmissionLimits;
  now?: () => Date;
}

const dayMs = 24 * 60 * 60 * 1000;

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

export function pendingSpans(request: OtlpTraceRequest): PendingSpans {
  const traceIds: string[] = [];
  const spanIds: string[] = [];
  for (const resourceSpans of request.resourceSpans)
    for (const scopeSpans of resourceSpans.scopeSpans)
      for (const span of scopeSpans.spans) {
        traceIds.push(span.traceId);
        spanIds.push(span.spanId);
      }
  let normalized: PublishedSpan[] | NormalizationFailed | undefined;
  const prepare = () => {
    if (normalized) return;
    const started = performance.now();
    try {
      normalized = normalizeRequest(request);
    } catch (error) {
      normalized = new NormalizationFailed(error);
    }
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

/** The accepted spans by trace, in the order each trace's first span came. */
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
async function normalizeEach(requests: PendingSpans[]): Promise<(PublishedSpan[] | Error)[]> {
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

/**
 * Admits the requests of one org, in arrival order (DESIGN.md, hot paths): with the org's lease
 * held, the ledger is read in one round trip (while the requests are normalized), each request is
 * decided by the pure function against the facts its predecessors left, and the accepted spans are
 * published while one statement records them in the ledger and gives the lease back, in a
 * transaction committed only once Kafka acknowledged them. If the publish fails the transaction is
 * rolled back, nothing is recorded, and the callers answer 503; if the commit fails after the
 * publish, the spans sent again are duplicates on the topic, which the spans read model collapses.
 * A request whose normalization failed gets that error, and is neither decided nor recorded.
 */
export async function admitRequests(
  deps: IngestDeps,
  orgId: string,
  requests: PendingSpans[],
): Promise<(Admission | Error)[]> {
  const now = deps.now?.() ?? new Date();
  const month = `${now.toISOString().slice(0, 7)}-01`;
  const started = performance.now();
  return deps.leases.hold(orgId, deps.leaseWaitMs, async (lease) => {
    const leased = performance.now();
    const reading = readLedger(deps.pool, {
      orgId,
      traceIds: requests.flatMap((request) => request.traceIds),
      spanIds: requests.flatMap((request) => request.spanIds),
      month,
      deletedSince: new Date(now.getTime() - dayMs),
    });
    // Settled here so a failed read is not reported unhandled while the spans are normalized.
    reading.catch(() => undefined);
    const normalized = await normalizeEach(requests);
    const ledger = await reading;
    const read = performance.now();
    let facts: LedgerFacts = ledger;
    const accepted: PublishedSpan[] = [];
    const admissions = normalized.map((spans) => {
      if (spans instanceof Error) return spans;
      const admission = decideAdmission({ spans, ledger: facts, now, limits: deps.limits });
      facts = factsAfter(facts, spans, admission);
      spans.forEach((span, index) => {
        spansReceived.inc({ verdict: admission.verdicts[index] });
        if (admission.verdicts[index] === 'accepted') accepted.push(span);
      });
      return admission;
    });
    if (accepted.length === 0) return admissions;

    const decided = performance.now();
    const traces = [...groupByTrace(accepted)].map(([traceId, spans]) => ({
      traceId,
      traceFirstReceivedAt: ledger.traceFirstReceived.get(traceId) ?? now,
      spans,
    }));
    let published = decided;
    const deliver = () =>
      publishSpansReceived(deps.producer, { orgId, occurredAt: now, traces }).finally(() => {
        published = performance.now();
      });
    await recordAccepted(
      deps.recordPool,
      lease,
      {
        month,
        now,
        traceIds: accepted.map((span) => span.traceId),
        spanIds: accepted.map((span) => span.spanId),
        bytes: facts.monthBytes - ledger.monthBytes,
      },
      deliver,
    );
    const phases = {
      lease: started,
      ledger_read: leased,
      decide: read,
      publish: decided,
      ledger_write: published,
    };
    const ends = [leased, read, decided, published, performance.now()];
    Object.entries(phases).forEach(([phase, from], index) => {
      ingestPhaseDuration.observe({ phase }, (ends[index]! - from) / 1000);
    });
    return admissions;
  });
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
