import { randomUUID } from 'node:crypto';
import { type Admission, type AdmissionLimits, decideAdmission } from '../../domain/tracing/admission.ts';
import type { PublishedSpan, SpanEvent } from '../../domain/tracing/events.ts';
import { normalizeSpan } from '../../domain/tracing/normalize.ts';
import type { OtlpTraceRequest } from '../../domain/tracing/otlp.ts';
import { storedSpanBytes } from '../../domain/tracing/truncation.ts';
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
    for (const scopeSpans of resourceSpans.scopeSpans) {
      for (const span of scopeSpans.spans) {
        const stored = normalizeSpan(span, resourceSpans.resource.attributes, scopeSpans.scope);
        spans.push({ ...stored, sizeBytes: storedSpanBytes(stored) });
      }
    }
  }
  return spans;
}

/**
 * Admits a request's spans and publishes the accepted ones (DESIGN.md, hot paths): the org's
 * ledger is locked and read in one round trip, admission is decided by the pure function, the
 * accepted spans are recorded, and the transaction commits only after Kafka acknowledged them.
 * If anything fails, nothing of the request is kept, and the caller answers 503.
 */
export async function ingestSpans(
  deps: IngestDeps,
  orgId: string,
  spans: PublishedSpan[],
): Promise<Admission> {
  const now = deps.now?.() ?? new Date();
  const month = `${now.toISOString().slice(0, 7)}-01`;
  return inTransaction(deps.pool, async (client) => {
    await lockOrg(client, orgId);
    const ledger = await readLedger(client, {
      orgId,
      traceIds: spans.map((span) => span.traceId),
      spanIds: spans.map((span) => span.spanId),
      month,
      deletedSince: new Date(now.getTime() - dayMs),
    });
    const admission = decideAdmission({ spans, ledger, now, limits: deps.limits });
    const accepted = spans.filter((_, index) => admission.verdicts[index] === 'accepted');
    if (accepted.length === 0) return admission;

    const byTrace = new Map<string, PublishedSpan[]>();
    for (const span of accepted) byTrace.set(span.traceId, [...(byTrace.get(span.traceId) ?? []), span]);
    await recordAccepted(client, {
      orgId,
      month,
      now,
      traceIds: accepted.map((span) => span.traceId),
      spanIds: accepted.map((span) => span.spanId),
      perTrace: new Map([...byTrace].map(([traceId, traceSpans]) => [traceId, traceSpans.length])),
      bytes: admission.acceptedBytes,
    });
    const events: SpanEvent[] = [...byTrace].map(([traceId, traceSpans]) => ({
      type: 'SpansReceived',
      eventId: randomUUID(),
      orgId,
      traceId,
      occurredAt: now,
      traceFirstReceivedAt: ledger.traceFirstReceived.get(traceId) ?? now,
      spans: traceSpans,
    }));
    await publishSpanEvents(deps.producer, events);
    return admission;
  });
}
