import { type Admission, decideAdmission, factsAfter, withAccepted } from '../../domain/tracing/admission.ts';
import type { PublishedSpan } from '../../domain/tracing/events.ts';
import { ingestPhaseDuration, spansReceived } from '../../platform/metrics.ts';
import { publishSpanEvents } from '../../producers/spans.ts';
import type { Lease } from '../../stores/admission-lease.ts';
import { readLedger, recordAccepted, type TraceFacts } from '../../stores/ingest-ledger.ts';
import { type IngestDeps, normalizeEach, type PendingSpans, spanEvents } from './ingest.ts';

const dayMs = 24 * 60 * 60 * 1000;

/** A group of one org's requests, from its forming until the ledger recorded it or it failed. */
interface Group {
  generation: number;
  now: Date;
  month: string;
  /** The spans it accepted, once decided; rejected if it failed before deciding. */
  decided: Promise<PublishedSpan[]>;
}

/** An earlier group this one was decided against failed: this one's decisions may be wrong. */
export class EarlierGroupFailed extends Error {
  constructor(orgId: string) {
    super(`an earlier admission of org ${orgId}, counted in this one's decisions, failed`);
    this.name = 'EarlierGroupFailed';
  }
}

const ignore = () => undefined;

/**
 * One org's admissions in this process, pipelined (DESIGN.md, hot paths). The org's lease is taken
 * once and kept while groups follow each other. Every ledger statement (taking the lease, a
 * group's read, a group's recording) runs in one line, one after another, so a group's read sees
 * exactly the recordings enqueued before it; the groups decided but not yet recorded when it was
 * read are counted in on top, so each group is decided against everything accepted before it,
 * while earlier groups are still being published. Groups are recorded (or fail) in the order they
 * were formed, each only once Kafka acknowledged its spans. A group that fails fails every group
 * formed while it was unrecorded (they were decided counting its spans), which record nothing;
 * the lease is then given back and the next group starts afresh. The last group of a run gives
 * the lease back in its recording statement.
 */
export class OrgAdmissions {
  /** Groups formed and not yet finished: the caller forms no more than it allows. */
  inFlight = 0;
  /**
   * Whether a group is reading the ledger or being decided: the caller forms the next group only
   * once it is decided, so requests arriving meanwhile gather into one group.
   */
  deciding = false;
  /** Advanced by a failure: groups of an older generation were decided against it and fail. */
  private generation = 0;
  /** The lease as taken (or being taken) in the ledger line; undefined once given back. */
  private lease: Promise<Lease> | undefined;
  /** Groups formed whose recording is not yet in the ledger line, in the order formed. */
  private unrecorded: Group[] = [];
  /** Settles when the last group formed has finished (recorded or failed). */
  private lastFinished: Promise<void> = Promise.resolve();
  private ledgerTail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: IngestDeps,
    private readonly orgId: string,
    /** Called when a group has been decided (or failed before): the next may be formed. */
    private readonly onDecided: () => void = ignore,
  ) {}

  /** Runs a ledger statement after every statement enqueued before it. */
  private inLedgerLine<T>(statement: () => Promise<T>): Promise<T> {
    const result = this.ledgerTail.then(statement);
    this.ledgerTail = result.catch(ignore);
    return result;
  }

  /** Admits one group of requests in arrival order; one verdict or error per request. */
  admit(requests: PendingSpans[]): Promise<(Admission | Error)[]> {
    this.inFlight += 1;
    this.deciding = true;
    return this.run(requests).finally(() => {
      this.inFlight -= 1;
    });
  }

  private async run(requests: PendingSpans[]): Promise<(Admission | Error)[]> {
    const { deps, orgId } = this;
    const formed = performance.now();
    const now = deps.now?.() ?? new Date();
    const month = `${now.toISOString().slice(0, 7)}-01`;
    const generation = this.generation;
    const earlier = [...this.unrecorded];
    this.lease ??= this.inLedgerLine(() => deps.leases.acquire(orgId, deps.leaseWaitMs));
    const lease = this.lease;
    lease.catch(ignore);
    const reading = this.inLedgerLine(async () => {
      await lease;
      return readLedger(deps.pool, {
        orgId,
        traceIds: requests.flatMap((request) => request.traceIds),
        spanIds: requests.flatMap((request) => request.spanIds),
        month,
        deletedSince: new Date(now.getTime() - dayMs),
      });
    });
    // Settled here so a failed read is not reported unhandled while the spans are normalized.
    reading.catch(ignore);
    const decided = Promise.withResolvers<PublishedSpan[]>();
    decided.promise.catch(ignore);
    const group: Group = { generation, now, month, decided: decided.promise };
    this.unrecorded.push(group);
    const finished = Promise.withResolvers<void>();
    const predecessor = this.lastFinished;
    this.lastFinished = finished.promise;

    let failure: unknown;
    let deciding = true;
    let admissions: (Admission | Error)[] = [];
    let accepted: PublishedSpan[] = [];
    const marks = { formed, read: formed, decided: formed, published: formed };
    try {
      const normalized = await normalizeEach(requests);
      const ledger = await reading;
      const earlierAccepted = await Promise.all(earlier.map((g) => g.decided));
      marks.read = performance.now();
      ({ admissions, accepted } = this.decide(normalized, ledger, earlier, earlierAccepted, now, month));
      decided.resolve(accepted);
      deciding = false;
      this.decidedOne();
      marks.decided = performance.now();
      if (accepted.length > 0) {
        const firstReceived = new Map(ledger.traceFirstReceived);
        earlier.forEach((g, index) => {
          for (const span of earlierAccepted[index]!)
            if (!firstReceived.has(span.traceId)) firstReceived.set(span.traceId, g.now);
        });
        await publishSpanEvents(deps.producer, spanEvents(orgId, now, accepted, firstReceived));
      }
      marks.published = performance.now();
    } catch (error) {
      failure = error;
      decided.reject(error);
      if (deciding) this.decidedOne();
    }

    // In the order formed: each group is recorded, or fails, after the one before it.
    await predecessor;
    const turn = performance.now();
    if (failure === undefined && generation !== this.generation) failure = new EarlierGroupFailed(orgId);
    try {
      if (failure !== undefined) throw failure;
      this.unrecorded.splice(this.unrecorded.indexOf(group), 1);
      const last = this.unrecorded.length === 0;
      if (last) this.lease = undefined;
      const bytes = accepted.reduce((sum, span) => sum + span.sizeBytes, 0);
      if (accepted.length > 0)
        await this.inLedgerLine(async () =>
          recordAccepted(
            deps.pool,
            await lease,
            {
              month,
              now,
              traceIds: accepted.map((span) => span.traceId),
              spanIds: accepted.map((span) => span.spanId),
              bytes,
            },
            !last,
          ),
        );
      else if (last) await this.inLedgerLine(async () => deps.leases.release(await lease));
    } catch (error) {
      if (generation === this.generation) await this.startAfresh(lease);
      finished.resolve();
      throw error;
    }
    finished.resolve();
    observePhases(marks, turn, performance.now());
    return admissions;
  }

  private decidedOne(): void {
    this.deciding = false;
    this.onDecided();
  }

  /** Each request decided against the ledger, the earlier groups' spans and the requests before it. */
  private decide(
    normalized: (PublishedSpan[] | Error)[],
    ledger: TraceFacts,
    earlier: Group[],
    earlierAccepted: PublishedSpan[][],
    now: Date,
    month: string,
  ): { admissions: (Admission | Error)[]; accepted: PublishedSpan[] } {
    // One copy of the ledger's facts for all earlier groups; a group of the month before (the
    // month turned meanwhile) counts only for duplicates and traces.
    const ofMonth = (inMonth: boolean) =>
      earlier.flatMap((g, index) => ((g.month === month) === inMonth ? earlierAccepted[index]! : []));
    let facts = withAccepted(withAccepted(ledger, ofMonth(true)), ofMonth(false), false);
    const accepted: PublishedSpan[] = [];
    const admissions = normalized.map((spans) => {
      if (spans instanceof Error) return spans;
      const admission = decideAdmission({ spans, ledger: facts, now, limits: this.deps.limits });
      facts = factsAfter(facts, spans, admission);
      spans.forEach((span, index) => {
        spansReceived.inc({ verdict: admission.verdicts[index] });
        if (admission.verdicts[index] === 'accepted') accepted.push(span);
      });
      return admission;
    });
    return { admissions, accepted };
  }

  /**
   * After a failure: the groups formed since it fail (they are of the old generation), and the
   * lease is given back, so the next group takes it and reads the ledger afresh.
   */
  private async startAfresh(lease: Promise<Lease>): Promise<void> {
    this.generation += 1;
    this.unrecorded = [];
    this.lease = undefined;
    await this.inLedgerLine(async () => {
      const held = await lease.catch(ignore);
      if (held) await this.deps.leases.release(held);
    }).catch(ignore);
  }
}

function observePhases(
  marks: { formed: number; read: number; decided: number; published: number },
  turn: number,
  recorded: number,
): void {
  const phases: [string, number, number][] = [
    ['ledger_read', marks.formed, marks.read],
    ['decide', marks.read, marks.decided],
    ['publish', marks.decided, marks.published],
    ['turn', marks.published, turn],
    ['ledger_write', turn, recorded],
  ];
  for (const [phase, from, to] of phases) ingestPhaseDuration.observe({ phase }, (to - from) / 1000);
}
