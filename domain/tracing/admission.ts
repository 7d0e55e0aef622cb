// Which spans of one OTLP request are kept (001, "Refused spans", the idempotence rule and
// "Limits"): a pure decision over the request's spans, in the order sent, and the ledger's facts
// about them (read from Postgres in one round trip by the endpoint).
import { type Limits, limits as specLimits } from './limits.ts';

/** What admission needs of a normalized span; sizeBytes is storedSpanBytes of the limited span. */
export interface CandidateSpan {
  traceId: string;
  spanId: string;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  sizeBytes: number;
}

/** The admission ledger's facts for the request's spans, before this request. */
export interface LedgerFacts {
  /** `traceId:spanId` of the request's spans that are already stored. */
  storedSpanKeys: ReadonlySet<string>;
  /** Spans already stored per trace id. */
  traceSpanCounts: ReadonlyMap<string, number>;
  /** Trace ids deleted in the last 24 hours. */
  deletedTraceIds: ReadonlySet<string>;
  /** Spans and stored bytes the org has kept this UTC month. */
  monthSpans: number;
  monthBytes: number;
}

export type AdmissionLimits = Pick<Limits, 'spansPerTrace' | 'monthlySpans' | 'monthlyBytes'>;

/** The spec's "Refused spans" reasons, in its table's order, which is the error message's order. */
export const refusalReasons = [
  'bad_id',
  'bad_time',
  'trace_full',
  'deleted_trace',
  'monthly_spans',
  'monthly_data',
] as const;
export type RefusalReason = (typeof refusalReasons)[number];

/** `duplicate`: stored before, or accepted earlier in this request; a success, not stored or counted again. */
export type Verdict = 'accepted' | 'duplicate' | RefusalReason;

interface Wording {
  n: string;
  month: string;
  date: string;
  limits: AdmissionLimits;
}

const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const gibibytes = (bytes: number): string => `${thousands(bytes / 1024 ** 3)} GiB`;

/** The spec's message for each reason ("Refused spans", Message content). */
const refusalWording: Record<RefusalReason, (w: Wording) => string> = {
  bad_id: ({ n }) => `${n} spans had a trace or span id that is missing, all zeros or of the wrong length`,
  bad_time: ({ n }) => `${n} spans had a start or end time past the year 2262`,
  trace_full: ({ n, limits }) =>
    `${n} spans would have taken a trace past ${thousands(limits.spansPerTrace)} spans`,
  deleted_trace: ({ n }) => `${n} spans belong to traces deleted in the last 24 hours`,
  monthly_spans: ({ month, date, limits }) =>
    `the org has kept ${thousands(limits.monthlySpans)} spans in ${month}; spans are accepted again on ${date}`,
  monthly_data: ({ month, date, limits }) =>
    `the org has kept ${gibibytes(limits.monthlyBytes)} of spans in ${month}; spans are accepted again on ${date}`,
};

const monthNames =
  'January February March April May June July August September October November December'.split(' ');

/** `November 2026`: the UTC month of now. */
export const monthOf = (now: Date): string => `${monthNames[now.getUTCMonth()]} ${now.getUTCFullYear()}`;

/** `2026-12-01`: the first day of the UTC month after now's. */
export const nextMonthStart = (now: Date): string =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);

/** `partial_success.error_message`: each reason with a count, in the table's order, joined by `; `. */
export function refusalMessage(
  counts: Partial<Record<RefusalReason, number>>,
  now: Date,
  limits: AdmissionLimits = specLimits,
): string {
  const context = { month: monthOf(now), date: nextMonthStart(now), limits };
  return refusalReasons
    .filter((reason) => (counts[reason] ?? 0) > 0)
    .map((reason) => refusalWording[reason]({ ...context, n: thousands(counts[reason]!) }))
    .join('; ');
}

// A bad id is missing, all zeros, or not 32 (trace) or 16 (span) hex digits. Both decoders give
// ids as lowercase hex, the form the ledger keys and reads them in (stores/ingest-ledger.ts,
// which reads this rule too). Read a character at a time rather than by two regular expressions:
// this runs for every span, in admission and in the ledger's read.
const isGoodId = (id: string, digits: number): boolean => {
  if (id.length !== digits) return false;
  let nonZero = false;
  for (let index = 0; index < digits; index += 1) {
    const code = id.charCodeAt(index);
    const digit = code >= 48 && code <= 57;
    if (!digit && !(code >= 97 && code <= 102)) return false;
    if (code !== 48) nonZero = true;
  }
  return nonZero;
};
export const isGoodTraceId = (id: string): boolean => isGoodId(id, 32);
export const isGoodSpanId = (id: string): boolean => isGoodId(id, 16);

// Past the year 2262 is past the int64 nanosecond range, 2262-04-11T23:47:16.854775807Z.
const lastNanosecond = 2n ** 63n - 1n;
const inRange = (t: bigint): boolean => t >= 0n && t <= lastNanosecond;

/** What is taken on top of the ledger's facts: by the requests decided before in the same group, and by the request so far. */
interface Taken {
  /** The span ids accepted per trace id; a trace's count is its set's size. */
  traces: Map<string, Set<string>>;
  spans: number;
  bytes: number;
  /** Once a span of a request is refused for monthly data, every later one of it is too (no smaller span slips in). */
  dataFull: boolean;
}

/**
 * A span's verdict: the checks in order, the first that applies is its verdict, none is
 * `accepted`. Malformed spans are refused before anything else; a span of a deleted trace is
 * refused even if stored before; a duplicate succeeds before any limit is looked at, so a retried
 * request stays a success. The ledger's stored key is built only where the ledger holds any: a
 * batch of new traces (nearly every one) then makes no string per span.
 */
function verdictOf(
  span: CandidateSpan,
  accepted: Set<string> | undefined,
  ledger: LedgerFacts,
  taken: Taken,
  limits: AdmissionLimits,
): Exclude<Verdict, 'accepted'> | undefined {
  if (!isGoodTraceId(span.traceId) || !isGoodSpanId(span.spanId)) return 'bad_id';
  if (!inRange(span.startTimeUnixNano) || !inRange(span.endTimeUnixNano)) return 'bad_time';
  if (ledger.deletedTraceIds.has(span.traceId)) return 'deleted_trace';
  if (accepted?.has(span.spanId)) return 'duplicate';
  if (ledger.storedSpanKeys.size > 0 && ledger.storedSpanKeys.has(`${span.traceId}:${span.spanId}`))
    return 'duplicate';
  if ((ledger.traceSpanCounts.get(span.traceId) ?? 0) + (accepted?.size ?? 0) >= limits.spansPerTrace)
    return 'trace_full';
  if (ledger.monthSpans + taken.spans >= limits.monthlySpans) return 'monthly_spans';
  if (taken.dataFull || ledger.monthBytes + taken.bytes + span.sizeBytes > limits.monthlyBytes)
    return 'monthly_data';
  return undefined;
}

export interface Admission {
  /** One per span, in the order sent. */
  verdicts: Verdict[];
  /** What the accepted spans add to the org's month. */
  acceptedSpans: number;
  acceptedBytes: number;
  /** `partial_success.rejected_spans` and `error_message` ('' when nothing was refused). */
  rejectedSpans: number;
  refusals: Partial<Record<RefusalReason, number>>;
  errorMessage: string;
}

/** Decides every span of one request in the order sent: spans are accepted until a limit is reached. */
export function decideAdmission(request: {
  spans: readonly CandidateSpan[];
  ledger: LedgerFacts;
  now: Date;
  limits?: AdmissionLimits;
}): Admission {
  return decideAdmissions({ ...request, requests: [request.spans] })[0]!;
}

/**
 * Decides the requests of one group in arrival order (requests of one org are admitted together):
 * each against the ledger and the spans the requests before it accepted, as if each had been
 * recorded before the next came.
 */
export function decideAdmissions(group: {
  requests: readonly (readonly CandidateSpan[])[];
  ledger: LedgerFacts;
  now: Date;
  limits?: AdmissionLimits;
}): Admission[] {
  const { ledger, now, limits = specLimits } = group;
  const taken: Taken = { traces: new Map(), spans: 0, bytes: 0, dataFull: false };
  return group.requests.map((spans) => {
    const before = { spans: taken.spans, bytes: taken.bytes };
    taken.dataFull = false;
    const refusals: Partial<Record<RefusalReason, number>> = {};
    const verdicts: Verdict[] = [];
    for (const span of spans) {
      const accepted = taken.traces.get(span.traceId);
      const verdict = verdictOf(span, accepted, ledger, taken, limits) ?? 'accepted';
      if (verdict === 'accepted') take(taken, span, accepted);
      else if (verdict !== 'duplicate') {
        refusals[verdict] = (refusals[verdict] ?? 0) + 1;
        if (verdict === 'monthly_data') taken.dataFull = true;
      }
      verdicts.push(verdict);
    }
    const rejectedSpans = Object.values(refusals).reduce((sum, n) => sum + n, 0);
    return {
      verdicts,
      acceptedSpans: taken.spans - before.spans,
      acceptedBytes: taken.bytes - before.bytes,
      rejectedSpans,
      refusals,
      errorMessage: refusalMessage(refusals, now, limits),
    };
  });
}

/** Counts an accepted span as stored, in its trace and in the month. */
function take(taken: Taken, span: CandidateSpan, accepted: Set<string> | undefined): void {
  if (accepted) accepted.add(span.spanId);
  else taken.traces.set(span.traceId, new Set([span.spanId]));
  taken.spans += 1;
  taken.bytes += span.sizeBytes;
}
