import { describe, expect, it } from 'vitest';
import { decideAdmission, decideAdmissions, type LedgerFacts } from '../../../domain/tracing/admission.ts';

const now = new Date('2026-11-22T12:00:00Z');
const span = (traceId: string, spanId: string, sizeBytes = 100) => ({
  traceId,
  spanId,
  startTimeUnixNano: 1n,
  endTimeUnixNano: 2n,
  sizeBytes,
});
const t1 = 'a'.repeat(32);
const t2 = 'b'.repeat(32);
const empty: LedgerFacts = {
  storedSpanKeys: new Set(),
  traceSpanCounts: new Map(),
  deletedTraceIds: new Set(),
  monthSpans: 0,
  monthBytes: 0,
};
const limits = { spansPerTrace: 3, monthlySpans: 4, monthlyBytes: 10_000 };

describe('decideAdmissions: requests of one org admitted together, in arrival order', () => {
  it('decides each request as if the accepted spans of the ones before it were stored', () => {
    const first = [span(t1, '1'.repeat(16)), span(t1, '2'.repeat(16)), span(t2, '')];
    const second = [
      span(t1, '1'.repeat(16)),
      span(t1, '3'.repeat(16)),
      span(t1, '4'.repeat(16)),
      span(t2, '5'.repeat(16)),
      span(t2, '6'.repeat(16)),
    ];
    const [one, two] = decideAdmissions({ requests: [first, second], ledger: empty, now, limits });
    expect(one!.verdicts).toEqual(['accepted', 'accepted', 'bad_id']);
    expect([one!.acceptedSpans, one!.acceptedBytes]).toEqual([2, 200]);
    expect(two!.verdicts).toEqual(['duplicate', 'accepted', 'trace_full', 'accepted', 'monthly_spans']);
    expect([two!.acceptedSpans, two!.acceptedBytes]).toEqual([2, 200]);
    // Each request's refusals are its own.
    expect(one!.refusals).toEqual({ bad_id: 1 });
    expect(two!.refusals).toEqual({ trace_full: 1, monthly_spans: 1 });
  });

  it('decides one request alone as decideAdmission does', () => {
    const spans = [span(t1, '1'.repeat(16)), span(t1, '1'.repeat(16))];
    expect(decideAdmissions({ requests: [spans], ledger: empty, now, limits })).toEqual([
      decideAdmission({ spans, ledger: empty, now, limits }),
    ]);
  });

  it('refuses for monthly data only within the request that reached it', () => {
    const big = { ...limits, monthlySpans: 100, monthlyBytes: 250 };
    const [full, next] = decideAdmissions({
      requests: [
        [span(t1, '1'.repeat(16), 200), span(t1, '2'.repeat(16), 100), span(t2, '3'.repeat(16), 10)],
        [span(t2, '4'.repeat(16), 10)],
      ],
      ledger: empty,
      now,
      limits: big,
    });
    expect(full!.verdicts).toEqual(['accepted', 'monthly_data', 'monthly_data']);
    expect(next!.verdicts).toEqual(['accepted']);
  });
});
