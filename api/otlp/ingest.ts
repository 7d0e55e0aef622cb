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
import { storedSpanBytes } from '../../domain/tracing/truncation.ts';
import { ingestPhaseDuration, spansReceived } from '../../platform/metrics.ts';
import { inTransaction, type PgPool } from '../../platform/postgres.ts';
import type { EventProducer } from '../../producers/producer.ts';
import { publishSpanEvents } from '../../producers/spans.ts';
import { lockOrg, readLedger, recordAccepted } from './ledger.ts';

export interface IngestDeps {
  pool: PgPool;
  producer: EventProducer;
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
        const stored = normalizeSpan(span, resource, scopeSpans.scope);
        spans.push({ ...stored, sizeBytes: storedSpanBytes(stored) });
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
 * Admits the requests of one org, in arrival order, in one transaction (DESIGN.md, hot paths):
 * the org's ledger is locked and read in one round trip, each request is decided by the pure
 * function against the facts its predecessors left, the accepted spans are recorded, and the
 * transaction commits only after Kafka acknowledged them. If anything fails, nothing of these
 * requests is kept, and their callers answer 503.
 */
export async function admitRequests(
  deps: IngestDeps,
  orgId: string,
  requests: PublishedSpan[][],
): Promise<Admission[]> {
  const now = deps.now?.() ?? new Date();
  const month = `${now.toISOString().slice(0, 7)}-01`;
  const all = requests.flat();
  return inTransaction(deps.pool, async (client) => {
    const started = performance.now();
    await lockOrg(client, orgId);
    const locked = performance.now();
    const ledger = await readLedger(client, {
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
    await recordAccepted(client, {
      orgId,
      month,
      now,
      traceIds: accepted.map((span) => span.traceId),
      spanIds: accepted.map((span) => span.spanId),
      perTrace: new Map([...byTrace].map(([traceId, traceSpans]) => [traceId, traceSpans.length])),
      bytes: facts.monthBytes - ledger.monthBytes,
    });
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
    const recorded = performance.now();
    await publishSpanEvents(deps.producer, events);
    const phases = {
      lock: started,
      ledger_read: locked,
      decide: read,
      ledger_write: decided,
      publish: recorded,
    };
    const ends = [locked, read, decided, recorded, performance.now()];
    Object.entries(phases).forEach(([phase, from], index) => {
      ingestPhaseDuration.observe({ phase }, (ends[index]! - from) / 1000);
    });
    return admissions;
  });
}

interface Waiting {
  spans: PublishedSpan[];
  resolve: (admission: Admission) => void;
  reject: (error: unknown) => void;
}

/** Spans admitted in one transaction at most: bounds its size and its hold on the org's lock. */
const maxGroupSpans = 20_000;

/**
 * Group commit per org: requests that arrive while the org's admission is running wait and are
 * then admitted together. The org's lock is held once per group instead of once per request, so
 * throughput grows with load while each request is still decided exactly, in arrival order.
 */
export class AdmissionQueue {
  private readonly waiting = new Map<string, Waiting[]>();

  constructor(private readonly deps: IngestDeps) {}

  admit(orgId: string, spans: PublishedSpan[]): Promise<Admission> {
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(orgId);
      if (queue) {
        queue.push({ spans, resolve, reject });
        return;
      }
      this.waiting.set(orgId, [{ spans, resolve, reject }]);
      void this.drain(orgId);
    });
  }

  private async drain(orgId: string): Promise<void> {
    for (let queue = this.waiting.get(orgId); queue && queue.length > 0; queue = this.waiting.get(orgId)) {
      const group: Waiting[] = [];
      let size = 0;
      while (queue.length > 0 && (group.length === 0 || size + queue[0]!.spans.length <= maxGroupSpans)) {
        const next = queue.shift()!;
        group.push(next);
        size += next.spans.length;
      }
      try {
        const admissions = await admitRequests(
          this.deps,
          orgId,
          group.map((entry) => entry.spans),
        );
        group.forEach((entry, index) => {
          entry.resolve(admissions[index]!);
        });
      } catch (error) {
        for (const entry of group) entry.reject(error);
      }
    }
    this.waiting.delete(orgId);
  }
}
