import { randomUUID } from 'node:crypto';
import { type Admission, decideAdmissions } from '../../domain/tracing/admission.ts';
import type { PublishedSpan } from '../../domain/tracing/events.ts';
import { ingestPhaseDuration, spansReceived } from '../../platform/metrics.ts';
import { publishSpanEvents, publishSpansReceived } from '../../producers/spans.ts';
import type { Lease } from '../../stores/admission-lease.ts';
import {
  readLedger,
  recordAccepted,
  recordDeletion,
  type TraceFacts,
  traceKnown,
} from '../../stores/ingest-ledger.ts';
import { groupByTrace, type IngestDeps, normalizeEach, type PendingSpans } from './ingest.ts';

const dayMs = 24 * 60 * 60 * 1000;
const ignore = () => undefined;

/** A group decided with spans to record: what later groups count in until their read sees it. */
interface Recording {
  /** Its number under the org's lease: the lease says which is the last one recorded. */
  seq: number;
  month: string;
  accepted: PublishedSpan[];
  now: Date;
  /** When it was recorded, on this line's clock (`tick`); undefined until then. */
  recordedAt?: number;
}

/** A group's place in the line: the next group is decided, recorded and answered after it. */
interface Turn {
  generation: number;
  /** Settles once the group is decided (its Recording, if it has spans to record). */
  decided: Promise<Recording | undefined>;
  /** Resolves once the group's spans are recorded (or it had none) and every earlier group's were. */
  ok: Promise<void>;
  /** Resolves once the group's recording statement has run, or once it will run none. */
  statementRan: Promise<void>;
  /** Settles once the group is finished, however it ended. */
  done: Promise<void>;
}

/** An earlier group this one was decided against failed: this one's decisions may be wrong. */
export class EarlierGroupFailed extends Error {
  constructor(orgId: string) {
    super(`an earlier admission of org ${orgId}, counted in this one's decisions, failed`);
    this.name = 'EarlierGroupFailed';
  }
}

/**
 * One org's admissions and deletions in this process (DESIGN.md, hot paths), pipelined: a few
 * groups under way at once. The org's lease is taken once and kept while groups follow each other,
 * each recording renewing it. A group's ledger read runs at once, while earlier groups are still
 * being published and recorded: the read says which of them its snapshot holds (the lease's
 * recorded number), and the others are counted in from memory, so each group is decided against
 * everything accepted before it. Groups are decided, recorded and answered in the order formed
 * (their recordings lock the lease's row in turn, and each commits only after the one before it).
 * A group that fails fails those decided against it; the line then starts afresh, with a new read
 * of the ledger. The lease is given back when another process wants it, once the groups under way
 * are recorded, or when the org has gone quiet.
 */
export class OrgAdmissions {
  /** Groups begun and not finished: the caller begins no more than it allows. */
  running = 0;
  /** Another process wants the lease: begin nothing until it is given back (`yieldLease`). */
  yielding = false;
  private lease: Promise<Lease> | undefined;
  /** The last group number given under the current lease. */
  private seq = 0;
  /** Advanced when a group fails: groups of an older generation were decided against it. */
  private generation = 0;
  private lastTurn: Turn = {
    generation: 0,
    decided: Promise.resolve(undefined),
    ok: Promise.resolve(),
    statementRan: Promise.resolve(),
    done: Promise.resolve(),
  };
  /** Groups decided with spans to record, kept until every later read sees them recorded. */
  private recordings: Recording[] = [];
  private clock = 0;

  constructor(
    private readonly deps: IngestDeps,
    private readonly orgId: string,
  ) {}

  private tick(): number {
    this.clock += 1;
    return this.clock;
  }

  /** The org's lease, taken if not held, renewed if half its time is gone. */
  private leaseFor(): Promise<Lease> {
    const { leases, leaseWaitMs } = this.deps;
    // A failed take is not kept: its group failed, this one tries again.
    const held = (this.lease ?? Promise.resolve(undefined)).catch(ignore);
    const renewed = held.then(async (lease) => {
      if (lease && performance.now() < lease.validUntil - leases.ttlMs / 2) return lease;
      const taken = await leases.acquire(this.orgId, leaseWaitMs);
      // Taken anew, the group numbers go on from the last one recorded, by whichever holder.
      if (!lease) this.seq = taken.recordedSeq;
      return taken;
    });
    this.lease = renewed;
    renewed.catch(() => {
      if (this.lease === renewed) this.lease = undefined;
    });
    return renewed;
  }

  /** Gives the lease back, if held; the next group takes it anew. */
  async releaseLease(): Promise<void> {
    const held = this.lease;
    this.lease = undefined;
    const lease = await held?.catch(ignore);
    if (lease) await this.deps.leases.release(lease).catch(ignore);
  }

  /** Once the groups under way are done: gives the lease back, so a waiting process takes it. */
  async yieldLease(): Promise<void> {
    await this.releaseLease();
    this.yielding = false;
  }

  /** Admits one group of requests, in arrival order; one verdict or error per request. */
  async admit(requests: PendingSpans[]): Promise<(Admission | Error)[]> {
    this.running += 1;
    try {
      return await this.run(requests);
    } finally {
      this.running -= 1;
    }
  }

  private async run(requests: PendingSpans[]): Promise<(Admission | Error)[]> {
    const { deps, orgId } = this;
    const started = performance.now();
    const now = deps.now?.() ?? new Date();
    const month = `${now.toISOString().slice(0, 7)}-01`;
    const previous = this.lastTurn;
    const generation = this.generation;
    const decided = Promise.withResolvers<Recording | undefined>();
    const ok = Promise.withResolvers<void>();
    const statementRan = Promise.withResolvers<void>();
    const done = Promise.withResolvers<void>();
    const turn: Turn = {
      generation,
      decided: decided.promise,
      ok: ok.promise,
      statementRan: statementRan.promise,
      done: done.promise,
    };
    for (const promise of [turn.decided, turn.ok]) promise.catch(ignore);
    this.lastTurn = turn;
    // Decided against every earlier group of its generation, it stands or falls with them.
    const before =
      previous.generation === generation
        ? previous.ok.catch(() => {
            throw new EarlierGroupFailed(orgId);
          })
        : previous.done;
    before.catch(ignore);
    const marks = { leased: started, read: started, decided: started, published: started };
    try {
      const lease = await this.leaseFor();
      marks.leased = performance.now();
      const issuedAt = this.tick();
      const reading = readLedger(deps.pool, {
        orgId,
        traceIds: requests.flatMap((request) => request.traceIds),
        spanIds: requests.flatMap((request) => request.spanIds),
        month,
        deletedSince: new Date(now.getTime() - dayMs),
      });
      // Settled here so a failed read is not reported unhandled while the spans are normalized.
      reading.catch(ignore);
      const normalized = await normalizeEach(requests);
      const ledger = await reading;
      await previous.decided.catch(ignore);
      marks.read = performance.now();
      if (generation !== this.generation) throw new EarlierGroupFailed(orgId);
      const { admissions, accepted, facts } = this.decide(normalized, ledger, now, month, issuedAt);
      const recording: Recording | undefined =
        accepted.length === 0 ? undefined : { seq: ++this.seq, month, accepted, now };
      if (recording) this.recordings.push(recording);
      else statementRan.resolve();
      decided.resolve(recording);
      marks.decided = performance.now();
      if (recording) {
        const traces = [...groupByTrace(accepted)].map(([traceId, spans]) => ({
          traceId,
          traceFirstReceivedAt: facts.traceFirstReceived.get(traceId) ?? now,
          spans,
        }));
        const deliver = () =>
          publishSpansReceived(deps.producer, { orgId, occurredAt: now, traces }).finally(() => {
            marks.published = performance.now();
          });
        const { wanted } = await recordAccepted(
          deps.recordPool,
          lease,
          deps.leases.ttlMs,
          {
            month,
            now,
            traceIds: accepted.map((span) => span.traceId),
            spanIds: accepted.map((span) => span.spanId),
            bytes: accepted.reduce((sum, span) => sum + span.sizeBytes, 0),
            seq: recording.seq,
          },
          deliver,
          { statementAfter: previous.statementRan, commitAfter: before, statementRan: statementRan.resolve },
        );
        recording.recordedAt = this.tick();
        if (wanted) this.yielding = true;
      } else await before;
      ok.resolve();
      observePhases(started, marks, performance.now());
      return admissions;
    } catch (error) {
      decided.reject(error);
      ok.reject(error);
      // The line starts afresh once every earlier group is done, so none is left out of a read.
      await previous.done;
      if (generation === this.generation) await this.startAfresh();
      throw error;
    } finally {
      statementRan.resolve();
      done.resolve();
    }
  }

  /**
   * Each request decided against the ledger as read, the groups its read does not see yet, and
   * the requests before it; the facts the group leaves include when each of its traces was first
   * received (`now` for a trace new in it or in an earlier unrecorded group).
   */
  private decide(
    normalized: (PublishedSpan[] | Error)[],
    ledger: TraceFacts,
    now: Date,
    month: string,
    issuedAt: number,
  ) {
    const unseen = this.recordings.filter((recording) => recording.seq > ledger.recordedSeq);
    // Recorded before this read was sent, a group is in this read's snapshot and every later one's.
    this.recordings = this.recordings.filter(
      (recording) => recording.recordedAt === undefined || recording.recordedAt > issuedAt,
    );
    const traceFirstReceived = new Map(ledger.traceFirstReceived);
    for (const recording of unseen)
      for (const span of recording.accepted)
        if (!traceFirstReceived.has(span.traceId)) traceFirstReceived.set(span.traceId, recording.now);
    const requests = normalized.filter((spans): spans is PublishedSpan[] => !(spans instanceof Error));
    const decided = decideAdmissions({
      requests,
      ledger,
      now,
      limits: this.deps.limits,
      earlier: unseen.map((recording) => ({ spans: recording.accepted, inMonth: recording.month === month })),
    });
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
    return { admissions, accepted, facts: { traceFirstReceived } };
  }

  /**
   * After a failure: the groups formed before it that were decided against it fail (they are of
   * the old generation), nothing unrecorded is counted any more, and the lease is given back, so
   * the next group takes it and reads the ledger afresh.
   */
  private async startAfresh(): Promise<void> {
    this.generation += 1;
    this.recordings = [];
    await this.releaseLease();
  }

  /**
   * Deletes a trace (001, "Deleting a trace"), run alone (the caller waits for the groups under
   * way): if the ledger knows the trace, TraceDeleted is published (it removes the trace's spans
   * from the read model) and then the ledger forgets the trace and remembers its deletion. False
   * for a trace the org does not have. A deletion recorded only in part is finished by the retry.
   */
  async deleteTrace(traceId: string): Promise<boolean> {
    const { deps, orgId } = this;
    const now = deps.now?.() ?? new Date();
    this.running += 1;
    try {
      const lease = await this.leaseFor();
      if (!(await traceKnown(deps.pool, orgId, traceId))) return false;
      await publishSpanEvents(deps.producer, [
        { type: 'TraceDeleted', eventId: randomUUID(), orgId, traceId, occurredAt: now },
      ]);
      const { wanted } = await recordDeletion(deps.pool, lease, deps.leases.ttlMs, traceId, now);
      if (wanted) this.yielding = true;
      return true;
    } catch (error) {
      await this.releaseLease();
      throw error;
    } finally {
      this.running -= 1;
    }
  }
}

/** Where a group's time went: the lease, the read (with normalization), deciding, publishing, committing. */
function observePhases(
  started: number,
  marks: { leased: number; read: number; decided: number; published: number },
  finished: number,
): void {
  const phases: [string, number, number][] = [
    ['lease', started, marks.leased],
    ['ledger_read', marks.leased, marks.read],
    ['decide', marks.read, marks.decided],
  ];
  if (marks.published > marks.decided)
    phases.push(['publish', marks.decided, marks.published], ['ledger_write', marks.published, finished]);
  for (const [phase, from, to] of phases) ingestPhaseDuration.observe({ phase }, (to - from) / 1000);
}
