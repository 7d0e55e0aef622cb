import { describe, expect, it } from 'vitest';
import {
  type CandidateSpan,
  decideAdmission,
  type LedgerFacts,
  monthOf,
  nextMonthStart,
  refusalMessage,
} from '../../../domain/tracing/admission.ts';

const GiB = 1024 ** 3;
const now = new Date('2026-11-15T10:00:00Z');
const traceA = '0af7651916cd43dd8448eb211c80319c';
const traceB = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = (i: number): string => (i + 1).toString(16).padStart(16, '0');

const candidate = (i: number, overrides: Partial<CandidateSpan> = {}): CandidateSpan => ({
  traceId: traceA,
  spanId: spanId(i),
  startTimeUnixNano: 1_700_000_000_000_000_000n,
  endTimeUnixNano: 1_700_000_001_000_000_000n,
  sizeBytes: 1000,
  ...overrides,
});
const ledger = (overrides: Partial<LedgerFacts> = {}): LedgerFacts => ({
  storedSpanKeys: new Set(),
  traceSpanCounts: new Map(),
  deletedTraceIds: new Set(),
  monthSpans: 0,
  monthBytes: 0,
  ...overrides,
});
const decide = (spans: CandidateSpan[], facts: Partial<LedgerFacts> = {}) =>
  decideAdmission({ spans, ledger: ledger(facts), now });

describe('refusal messages (001, Refused spans), verbatim', () => {
  it.each([
    ['bad_id', 3, '3 spans had a trace or span id that is missing, all zeros or of the wrong length'],
    ['bad_time', 1, '1 spans had a start or end time past the year 2262'],
    ['trace_full', 2, '2 spans would have taken a trace past 10,000 spans'],
    ['deleted_trace', 4, '4 spans belong to traces deleted in the last 24 hours'],
    [
      'monthly_spans',
      5,
      'the org has kept 1,000,000 spans in November 2026; spans are accepted again on 2026-12-01',
    ],
    [
      'monthly_data',
      6,
      'the org has kept 5 GiB of spans in November 2026; spans are accepted again on 2026-12-01',
    ],
  ] as const)('%s', (reason, n, message) => {
    expect(refusalMessage({ [reason]: n }, now)).toBe(message);
  });

  it('joins the reasons present in the table order with "; "', () => {
    const message = refusalMessage({ monthly_data: 1, bad_id: 2, deleted_trace: 1, bad_time: 0 }, now);
    expect(message).toBe(
      '2 spans had a trace or span id that is missing, all zeros or of the wrong length; ' +
        '1 spans belong to traces deleted in the last 24 hours; ' +
        'the org has kept 5 GiB of spans in November 2026; spans are accepted again on 2026-12-01',
    );
  });

  it('is empty when nothing was refused', () => {
    expect(refusalMessage({}, now)).toBe('');
  });

  it.each([
    ['2026-11-15T10:00:00Z', 'November 2026', '2026-12-01'],
    ['2026-12-31T23:59:59.999Z', 'December 2026', '2027-01-01'],
    ['2027-01-01T00:00:00Z', 'January 2027', '2027-02-01'],
    ['2028-02-29T12:00:00Z', 'February 2028', '2028-03-01'],
  ])('at %s the month is %s and spans are accepted again on %s', (at, month, date) => {
    expect(monthOf(new Date(at))).toBe(month);
    expect(nextMonthStart(new Date(at))).toBe(date);
  });
});

describe('bad id and bad time', () => {
  it.each([
    ['missing trace id', { traceId: '' }],
    ['missing span id', { spanId: '' }],
    ['all-zero trace id', { traceId: '0'.repeat(32) }],
    ['all-zero span id', { spanId: '0'.repeat(16) }],
    ['31-digit trace id', { traceId: traceA.slice(1) }],
    ['33-digit trace id', { traceId: `${traceA}0` }],
    ['15-digit span id', { spanId: '123456789abcdef' }],
    ['non-hex trace id', { traceId: `${traceA.slice(1)}g` }],
  ])('refuses a %s as bad_id', (_, overrides) => {
    expect(decide([candidate(0, overrides)]).verdicts).toEqual(['bad_id']);
  });

  const int64Max = 2n ** 63n - 1n;
  it.each([
    [
      'start at the last int64 nanosecond',
      { startTimeUnixNano: int64Max, endTimeUnixNano: int64Max },
      'accepted',
    ],
    ['start one past int64', { startTimeUnixNano: int64Max + 1n }, 'bad_time'],
    ['end one past int64', { endTimeUnixNano: int64Max + 1n }, 'bad_time'],
    ['end at the uint64 maximum', { endTimeUnixNano: 2n ** 64n - 1n }, 'bad_time'],
    ['a zero start time', { startTimeUnixNano: 0n }, 'accepted'],
  ])('%s is %s', (_, overrides, verdict) => {
    expect(decide([candidate(0, overrides)]).verdicts).toEqual([verdict]);
  });

  it('checks ids before times, and both before deleted traces', () => {
    const span = candidate(0, { spanId: '', endTimeUnixNano: 2n ** 64n - 1n });
    expect(decide([span], { deletedTraceIds: new Set([traceA]) }).verdicts).toEqual(['bad_id']);
    const late = candidate(0, { endTimeUnixNano: 2n ** 64n - 1n });
    expect(decide([late], { deletedTraceIds: new Set([traceA]) }).verdicts).toEqual(['bad_time']);
  });
});

describe('duplicates (idempotence)', () => {
  it('treats an already stored span as a success, not counted again', () => {
    const result = decide([candidate(0), candidate(1)], {
      storedSpanKeys: new Set([`${traceA}:${spanId(0)}`]),
    });
    expect(result.verdicts).toEqual(['duplicate', 'accepted']);
    expect(result.acceptedSpans).toBe(1);
    expect(result.rejectedSpans).toBe(0);
    expect(result.errorMessage).toBe('');
  });

  it('treats a span repeated in the same request as a duplicate of the accepted one', () => {
    const result = decide([candidate(0), candidate(0, { sizeBytes: 5 })]);
    expect(result.verdicts).toEqual(['accepted', 'duplicate']);
    expect(result.acceptedBytes).toBe(1000);
  });

  it('judges a repeat of a refused span on its own', () => {
    const result = decide([candidate(0), candidate(0)], { monthSpans: 1_000_000 });
    expect(result.verdicts).toEqual(['monthly_spans', 'monthly_spans']);
    expect(result.rejectedSpans).toBe(2);
  });

  it('lets a stored span succeed even when the month and the trace are full', () => {
    const facts = {
      storedSpanKeys: new Set([`${traceA}:${spanId(0)}`]),
      traceSpanCounts: new Map([[traceA, 10_000]]),
      monthSpans: 1_000_000,
      monthBytes: 5 * GiB,
    };
    expect(decide([candidate(0)], facts).verdicts).toEqual(['duplicate']);
  });

  it('refuses a span of a trace deleted in the last 24 hours even if it was stored', () => {
    const facts = { storedSpanKeys: new Set([`${traceA}:${spanId(0)}`]), deletedTraceIds: new Set([traceA]) };
    const result = decide([candidate(0), candidate(1, { traceId: traceB })], facts);
    expect(result.verdicts).toEqual(['deleted_trace', 'accepted']);
    expect(result.errorMessage).toBe('1 spans belong to traces deleted in the last 24 hours');
  });
});

describe('spans per trace (10,000)', () => {
  it.each([
    [9_999, 1, ['accepted']],
    [10_000, 1, ['trace_full']],
    [9_998, 3, ['accepted', 'accepted', 'trace_full']],
  ])('with %d stored, %d more give %j', (stored, sent, verdicts) => {
    const spans = Array.from({ length: sent }, (_, i) => candidate(i));
    expect(decide(spans, { traceSpanCounts: new Map([[traceA, stored]]) }).verdicts).toEqual(verdicts);
  });

  it('accepts exactly 10,000 spans of a new trace in one request and refuses the 10,001st', () => {
    const spans = Array.from({ length: 10_001 }, (_, i) => candidate(i, { sizeBytes: 1 }));
    const result = decide(spans);
    expect(result.verdicts.filter((v) => v === 'accepted')).toHaveLength(10_000);
    expect(result.verdicts[10_000]).toBe('trace_full');
    expect(result.errorMessage).toBe('1 spans would have taken a trace past 10,000 spans');
  });

  it('counts per trace: a full trace does not stop another', () => {
    const spans = [candidate(0), candidate(1, { traceId: traceB })];
    expect(decide(spans, { traceSpanCounts: new Map([[traceA, 10_000]]) }).verdicts).toEqual([
      'trace_full',
      'accepted',
    ]);
  });
});

describe('monthly limits', () => {
  it.each([
    [999_999, ['accepted', 'monthly_spans']],
    [1_000_000, ['monthly_spans', 'monthly_spans']],
    [999_998, ['accepted', 'accepted']],
  ])('with %d spans kept this month, two more give %j', (monthSpans, verdicts) => {
    expect(decide([candidate(0), candidate(1)], { monthSpans }).verdicts).toEqual(verdicts);
  });

  it.each([
    [5 * GiB - 2000, ['accepted', 'accepted']],
    [5 * GiB - 1000, ['accepted', 'monthly_data']],
    [5 * GiB - 999, ['monthly_data', 'monthly_data']],
    [5 * GiB, ['monthly_data', 'monthly_data']],
  ])('with %d bytes kept, two spans of 1,000 bytes give %j', (monthBytes, verdicts) => {
    expect(decide([candidate(0), candidate(1)], { monthBytes }).verdicts).toEqual(verdicts);
  });

  it('refuses every later span once monthly data is reached, even one that would fit', () => {
    const spans = [
      candidate(0, { sizeBytes: 600 }),
      candidate(1, { sizeBytes: 600 }),
      candidate(2, { sizeBytes: 10 }),
    ];
    const result = decide(spans, { monthBytes: 5 * GiB - 1000 });
    expect(result.verdicts).toEqual(['accepted', 'monthly_data', 'monthly_data']);
    expect(result.acceptedBytes).toBe(600);
  });

  it('checks monthly spans before monthly data', () => {
    expect(decide([candidate(0)], { monthSpans: 1_000_000, monthBytes: 5 * GiB }).verdicts).toEqual([
      'monthly_spans',
    ]);
  });

  it('checks the trace before the month', () => {
    const facts = { traceSpanCounts: new Map([[traceA, 10_000]]), monthSpans: 1_000_000 };
    expect(decide([candidate(0)], facts).verdicts).toEqual(['trace_full']);
  });

  it('takes its limits as an argument', () => {
    const result = decideAdmission({
      spans: [candidate(0), candidate(1)],
      ledger: ledger(),
      now,
      limits: { spansPerTrace: 10_000, monthlySpans: 1, monthlyBytes: 5 * GiB },
    });
    expect(result.verdicts).toEqual(['accepted', 'monthly_spans']);
    expect(result.errorMessage).toBe(
      'the org has kept 1 spans in November 2026; spans are accepted again on 2026-12-01',
    );
  });
});

describe('a mixed request', () => {
  it('counts each refusal and states every reason once', () => {
    const spans = [
      candidate(0),
      candidate(1, { traceId: '' }),
      candidate(2, { traceId: '' }),
      candidate(3, { startTimeUnixNano: 2n ** 64n - 1n }),
      candidate(4, { traceId: traceB }),
      candidate(0),
    ];
    const result = decide(spans, { deletedTraceIds: new Set([traceB]) });
    expect(result.verdicts).toEqual([
      'accepted',
      'bad_id',
      'bad_id',
      'bad_time',
      'deleted_trace',
      'duplicate',
    ]);
    expect(result.rejectedSpans).toBe(4);
    expect(result.refusals).toEqual({ bad_id: 2, bad_time: 1, deleted_trace: 1 });
    expect(result.acceptedSpans).toBe(1);
    expect(result.errorMessage).toBe(
      '2 spans had a trace or span id that is missing, all zeros or of the wrong length; ' +
        '1 spans had a start or end time past the year 2262; ' +
        '1 spans belong to traces deleted in the last 24 hours',
    );
  });

  it('succeeds with no spans', () => {
    expect(decide([])).toEqual({
      verdicts: [],
      acceptedSpans: 0,
      acceptedBytes: 0,
      rejectedSpans: 0,
      refusals: {},
      errorMessage: '',
    });
  });
});
