import { randomUUID } from 'node:crypto';
import {
  type Admission,
  type AdmissionLimits,
  decideAdmission,
  factsAfter,
  type LedgerFacts,
} from '../../domain/tracing/admission.ts';
import type { PublishedSpan, SpanEvent } from '../../domain/tracing/events.ts';
import { normalizeSpan, prepareResource } from '../../domain/tracing/normalize.ts';
import type { OtlpTraceRequest } from '../../domain/tracing/otlp.ts';
import { ingestPhaseDuration, spansReceived } from '../../platform/metrics.ts';
import type { PgPool } from '../../platform/postgres.ts';
import type { EventProducer } from '../../producers/producer.ts';
import { publishSpanEvents } from '../../producers/spans.ts';
import type { AdmissionLeases } from './admission-lease.ts';
import { readLedger, recordAccepted, recordDeletion, traceKnown } from './ledger.ts';

export interface IngestDeps {
  pool: PgPool;
  producer: EventProducer;
  leases: AdmissionLeases;
  /** How long a group may wait for the org's lease held by another API process. */
  leaseWaitMs: number;
  limits: AdmissionLimits;
  now?: () => Date;
}

const dayMs = 24 * 60 * 60 * 1000;

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
 * most 384 KiB), so no Kafka message comes near the broker's size limit, whatever the request.
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

/**
 * Admits the requests of one org, in arrival order (DESIGN.md, hot paths): with the org's lease
 * held, the ledger is read in one round trip, each request is decided by the pure function
 * against the facts its predecessors left, the accepted spans are published, and only once Kafka
 * acknowledged them does one statement record them in the ledger and give the lease back. No
 * transaction or connection waits on Kafka. If the publish fails nothing is recorded, and the
 * callers answer 503; if the recording fails after the publish, the spans sent again are
 * duplicates on the topic, which the spans read model collapses.
 */
export async function admitRequests(
  deps: IngestDeps,
  orgId: string,
  requests: PublishedSpan[][],
): Promise<Admission[]> {
  const now = deps.now?.() ?? new Date();
  const month = `${now.toISOString().slice(0, 7)}-01`;
  const all = requests.flat();
  const started = performance.now();
  return deps.leases.hold(orgId, deps.leaseWaitMs, async (lease) => {
    const leased = performance.now();
    const ledger = await readLedger(deps.pool, {
      orgId,
      traceIds: all.map((span) => span.traceId),
      spanIds: all.map((span) => span.spanId),
      month,
      deletedSince: new Date(now.getTime() - dayMs),
    });
    const read = performance.now();
    let facts: LedgerFacts = ledger;
    const accepted: PublishedSpan[] = [];
    const admissions = requests.map((spans) => {
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
    const byTrace = groupByTrace(accepted);
    const events: SpanEvent[] = [...byTrace].flatMap(([traceId, traceSpans]) =>
      chunkBySize(traceSpans).map((chunk) => ({
        type: 'SpansReceived' as const,
        eventId: randomUUID(),
        orgId,
        traceId,
        occurredAt: now,
        traceFirstReceivedAt: ledger.traceFirstReceived.get(traceId) ?? now,
        spans: chunk,
      })),
    );
    await publishSpanEvents(deps.producer, events);
    const published = performance.now();
    await recordAccepted(deps.pool, lease, {
      month,
      now,
      traceIds: accepted.map((span) => span.traceId),
      spanIds: accepted.map((span) => span.spanId),
      bytes: facts.monthBytes - ledger.monthBytes,
    });
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
