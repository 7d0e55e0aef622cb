import { randomUUID } from 'node:crypto';
import { type Admission, decideAdmissions } from '../../domain/tracing/admission.ts';
import type { PublishedSpan } from '../../domain/tracing/events.ts';
import { ingestPhaseDuration, spansReceived } from '../../platform/metrics.ts';
import { publishSpanEvents, publishSpansReceived } from '../../producers/spans.ts';
import type { Lease } from '../../stores/admission-lease.ts';
import { readLedger, recordAccepted, recordDeletion, traceKnown } from '../../stores/ingest-ledger.ts';
import { groupByTrace, type IngestDeps, normalizeEach, type PendingSpans } from './ingest.ts';

const dayMs = 24 * 60 * 60 * 1000;
const ignore = () => undefined;

/**
 * One org's admissions and deletions in this process (DESIGN.md, hot paths), one group at a time,
 * each decided against the ledger its predecessors left. The org's lease is taken once and kept
 * while groups follow each other, each recording renewing it, so a group pays no round trip for
 * it. When another process waits for it, the group's recording hands it over (the group's read
 * said so, and a group that records nothing gives it back); the next group then waits in the
 * org's line for its turn (stores/admission-lease.ts). It is also given back when the org has gone
 * quiet, and after a failure (admission-queue.ts).
 *
 * Groups are not pipelined: with a later group's read and decision under way while an earlier one
 * was published and recorded (each read counting in the earlier unrecorded groups), eight
 * exporters went no faster beside telemetrygen (17,306 and 21,777 spans/s one at a time, 15,600
 * and 21,436 three at a time) and slower with bench/ingest's LLM spans (18,662 and 13,850 one at
 * a time, 13,466 and 12,723 three at a time): smaller groups cost more statements and messages
 * per span on cores that are already full.
 */
export class OrgAdmissions {
  /** A group or deletion is under way: the caller starts nothing else for the org meanwhile. */
  busy = false;
  private lease: Promise<Lease> | undefined;

  constructor(
    private readonly deps: IngestDeps,
    private readonly orgId: string,
  ) {}

  /** The org's lease, taken if not held, renewed if half its time is gone. */
  private leaseFor(): Promise<Lease> {
    const { leases, leaseWaitMs } = this.deps;
    // A failed take is not kept: its group failed, this one tries again.
    const held = (this.lease ?? Promise.resolve(undefined)).catch(ignore);
    const taken = held.then((lease) =>
      lease && performance.now() < lease.validUntil - lease.ttlMs / 2
        ? lease
        : leases.acquire(this.orgId, leaseWaitMs),
    );
    this.lease = taken;
    taken.catch(() => {
      if (this.lease === taken) this.lease = undefined;
    });
    return taken;
  }

  /** Gives the lease back, if held (to the process waiting first, if any); the next group takes it anew. */
  async releaseLease(): Promise<void> {
    const held = this.lease;
    this.lease = undefined;
    const lease = await held?.catch(ignore);
    if (lease) await this.deps.leases.release(lease).catch(ignore);
  }

  /** A recording handed the lease to a process waiting for it: it is no more this one's to use. */
  private handedOver(): void {
    this.lease = undefined;
  }

  /**
   * Runs one group or deletion. After a failure the caller gives the lease back (`releaseLease`)
   * before the org's next one, which then starts afresh; it answers its callers first, so they do
   * not wait on that statement too (against a hung Postgres, another whole statement bound).
   */
  private async alone<T>(work: () => Promise<T>): Promise<T> {
    this.busy = true;
    try {
      return await work();
    } finally {
      this.busy = false;
    }
  }

  /**
   * Admits one group of requests in arrival order; one verdict or error per request. With the
   * lease held, the ledger is read in one round trip while the requests are normalized, each
   * request is decided against the facts its predecessors left, and the accepted spans are
   * published while one statement records them and renews the lease (or hands it over), in a
   * transaction committed only once Kafka acknowledged them. If anything fails the group is not
   * kept: nothing is recorded, the callers answer 503, and the spans Kafka may hold all the same
   * are never projected (stores/admission-groups.ts), so the requests sent again are stored and
   * counted once. A request whose normalization failed gets that error, and is neither decided
   * nor recorded.
   */
  admit(requests: PendingSpans[]): Promise<(Admission | Error)[]> {
    return this.alone(() => this.run(requests));
  }

  private async run(requests: PendingSpans[]): Promise<(Admission | Error)[]> {
    const { deps, orgId } = this;
    const started = performance.now();
    const now = deps.now?.() ?? new Date();
    const month = `${now.toISOString().slice(0, 7)}-01`;
    const marks = { leased: started, read: started, decided: started, published: started };
    const lease = await this.leaseFor();
    marks.leased = performance.now();
    const reading = readLedger(deps.pool, {
      orgId,
      traceIds: requests.flatMap((request) => request.traceIds),
      spanIds: requests.flatMap((request) => request.spanIds),
      month,
      deletedSince: new Date(now.getTime() - dayMs),
      leaseHolder: lease.holder,
    });
    // Settled here so a failed read is not reported unhandled while the spans are normalized.
    reading.catch(ignore);
    const normalized = await normalizeEach(requests);
    const ledger = await reading;
    marks.read = performance.now();
    const { admissions, accepted, acceptedBytes } = this.decide(normalized, ledger, now);
    marks.decided = performance.now();
    if (accepted.length > 0) {
      // The group's identity in its events and its ledger record: its spans reach the read models
      // only if that record is kept (stores/admission-groups.ts).
      const groupId = randomUUID();
      const traces = [...groupByTrace(accepted)].map(([traceId, spans]) => ({
        traceId,
        traceFirstReceivedAt: ledger.traceFirstReceived.get(traceId) ?? now,
        spans,
      }));
      const deliver = () =>
        publishSpansReceived(deps.producer, { orgId, occurredAt: now, traces, admissionId: groupId }).finally(
          () => {
            marks.published = performance.now();
          },
        );
      const { handedOver } = await recordAccepted(
        deps.recordPool,
        lease,
        {
          groupId,
          month,
          now,
          traceIds: accepted.map((span) => span.traceId),
          spanIds: accepted.map((span) => span.spanId),
          knownTraces: ledger.traceFirstReceived,
          bytes: acceptedBytes,
        },
        deliver,
      );
      if (handedOver) this.handedOver();
    } else if (ledger.leaseWanted) {
      // Nothing to record, so no recording hands the lease over: it is given back instead.
      await this.releaseLease();
    }
    observePhases(started, marks, performance.now());
    return admissions;
  }

  /** Each request decided against the ledger as read and the requests before it. */
  private decide(
    normalized: (PublishedSpan[] | Error)[],
    ledger: Parameters<typeof decideAdmissions>[0]['ledger'],
    now: Date,
  ): { admissions: (Admission | Error)[]; accepted: PublishedSpan[]; acceptedBytes: number } {
    const requests = normalized.filter((spans): spans is PublishedSpan[] => !(spans instanceof Error));
    const decided = decideAdmissions({ requests, ledger, now, limits: this.deps.limits });
    const accepted: PublishedSpan[] = [];
    const counts = new Map<string, number>();
    requests.forEach((spans, index) => {
      const { verdicts } = decided[index]!;
      spans.forEach((span, at) => {
        const verdict = verdicts[at]!;
        counts.set(verdict, (counts.get(verdict) ?? 0) + 1);
        if (verdict === 'accepted') accepted.push(span);
      });
    });
    for (const [verdict, count] of counts) spansReceived.inc({ verdict }, count);
    let next = 0;
    const admissions = normalized.map((spans) => (spans instanceof Error ? spans : decided[next++]!));
    const acceptedBytes = decided.reduce((sum, admission) => sum + admission.acceptedBytes, 0);
    return { admissions, accepted, acceptedBytes };
  }

  /**
   * Deletes a trace (001, "Deleting a trace"): if the ledger knows the trace, TraceDeleted is
   * published (it removes the trace's spans from the read model) and then the ledger forgets the
   * trace and remembers its deletion. False for a trace the org does not have. A deletion recorded
   * only in part is finished by the caller's retry.
   */
  deleteTrace(traceId: string): Promise<boolean> {
    return this.alone(async () => {
      const { deps, orgId } = this;
      const now = deps.now?.() ?? new Date();
      const lease = await this.leaseFor();
      if (!(await traceKnown(deps.pool, orgId, traceId))) return false;
      await publishSpanEvents(deps.producer, [
        { type: 'TraceDeleted', eventId: randomUUID(), orgId, traceId, occurredAt: now },
      ]);
      const { handedOver } = await recordDeletion(deps.pool, lease, traceId, now);
      if (handedOver) this.handedOver();
      return true;
    });
  }
}

/** A group's phases in the order they hold the org's line, as orrery_otlp_ingest_phase_seconds names them. */
export const groupPhases = ['lease', 'ledger_read', 'decide', 'publish', 'ledger_write'] as const;
type GroupPhase = (typeof groupPhases)[number];

/** Where a group's time went: the lease, the read (with normalization), deciding, publishing, committing. */
function observePhases(
  started: number,
  marks: { leased: number; read: number; decided: number; published: number },
  finished: number,
): void {
  const phases: [GroupPhase, number, number][] = [
    ['lease', started, marks.leased],
    ['ledger_read', marks.leased, marks.read],
    ['decide', marks.read, marks.decided],
  ];
  if (marks.published > marks.decided)
    phases.push(['publish', marks.decided, marks.published], ['ledger_write', marks.published, finished]);
  for (const [phase, from, to] of phases) ingestPhaseDuration.observe({ phase }, (to - from) / 1000);
}
