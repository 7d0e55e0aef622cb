import { describe, expect, it } from 'vitest';
import {
  decideAdmission,
  factsAfter,
  type LedgerFacts,
  withAccepted,
} from '../../../domain/tracing/admission.ts';

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

describe('factsAfter: requests of one org admitted together, in arrival order', () => {
  it('counts only the accepted spans, so the next request sees them as stored', () => {
    const first = [span(t1, '1'.repeat(16)), span(t1, '2'.repeat(16)), span(t2, '')];
    const admission = decideAdmission({ spans: first, ledger: empty, now, limits });
    const after = factsAfter(empty, first, admission);
    expect(after.monthSpans).toBe(2);
    expect(after.monthBytes).toBe(200);
    expect(after.traceSpanCounts.get(t1)).toBe(2);
    expect(after.storedSpanKeys.has(`${t1}:${'1'.repeat(16)}`)).toBe(true);
    expect(empty.storedSpanKeys.size).toBe(0);

    const second = [
      span(t1, '1'.repeat(16)),
      span(t1, '3'.repeat(16)),
      span(t1, '4'.repeat(16)),
      span(t2, '5'.repeat(16)),
      span(t2, '6'.repeat(16)),
    ];
    const next = decideAdmission({ spans: second, ledger: after, now, limits });
    expect(next.verdicts).toEqual(['duplicate', 'accepted', 'trace_full', 'accepted', 'monthly_spans']);
  });

  it('returns the same facts when nothing was accepted', () => {
    const spans = [span('0'.repeat(32), '1'.repeat(16))];
    expect(factsAfter(empty, spans, decideAdmission({ spans, ledger: empty, now, limits }))).toBe(empty);
  });
});

describe('withAccepted: spans of earlier groups accepted but not yet recorded', () => {
  const earlier = [span(t1, '1'.repeat(16), 300), span(t2, '2'.repeat(16), 200)];

  it('counts them as stored in their traces and in the month, leaving the ledger as read', () => {
    const facts = withAccepted(empty, earlier);
    expect(facts.storedSpanKeys).toEqual(new Set([`${t1}:${'1'.repeat(16)}`, `${t2}:${'2'.repeat(16)}`]));
    expect([...facts.traceSpanCounts]).toEqual([
      [t1, 1],
      [t2, 1],
    ]);
    expect([facts.monthSpans, facts.monthBytes]).toEqual([2, 500]);
    expect(empty.storedSpanKeys.size).toBe(0);
  });

  it('leaves the month alone for spans accepted in the month before', () => {
    const facts = withAccepted({ ...empty, monthSpans: 7, monthBytes: 70 }, earlier, false);
    expect([facts.monthSpans, facts.monthBytes]).toEqual([7, 70]);
    expect(facts.traceSpanCounts.get(t1)).toBe(1);
    const again = decideAdmission({ spans: [earlier[0]!], ledger: facts, now, limits });
    expect(again.verdicts).toEqual(['duplicate']);
  });
});
