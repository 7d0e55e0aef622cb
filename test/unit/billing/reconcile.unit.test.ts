import { describe, expect, it } from 'vitest';
import { compareDays, type DayTotals, describeDifference } from '../../../domain/billing/reconcile.ts';

const at = { orgId: 'org_1', model: 'scribe', day: '2026-11-21' };
const today = '2026-11-22';
const totals = (inputTokens: number, requests = 1, extra: Partial<DayTotals> = {}): DayTotals => ({
  ...at,
  requests,
  inputTokens,
  outputTokens: 2 * requests,
  ...extra,
});

describe('compareDays', () => {
  it('finds nothing when the log, the rollup and the charges agree', () => {
    expect(compareDays([totals(150_000, 3)], [totals(150_000, 3)], [{ ...at, cents: 2 }], today)).toEqual([]);
  });

  it('reports a rollup that differs from the log, and one the log does not have', () => {
    const other = { ...at, model: 'other' };
    expect(
      compareDays(
        [totals(100, 2)],
        [totals(90, 1), { ...other, requests: 1, inputTokens: 5, outputTokens: 1 }],
        [{ ...at, cents: 1 }],
        today,
      ),
    ).toEqual([
      {
        ...other,
        kind: 'rollup',
        log: { requests: 0, inputTokens: 0, outputTokens: 0 },
        rollup: { requests: 1, inputTokens: 5, outputTokens: 1 },
      },
      {
        ...at,
        kind: 'rollup',
        log: { requests: 2, inputTokens: 100, outputTokens: 4 },
        rollup: { requests: 1, inputTokens: 90, outputTokens: 2 },
      },
    ]);
  });

  it('prices the log, not the rollup: a missing rollup still owes its day', () => {
    expect(compareDays([totals(1)], [], [], today).map((d) => d.kind)).toEqual(['rollup', 'uncharged']);
  });

  it.each<[string, number, number, string, string[]]>([
    ['charged its price', 100_001, 2, at.day, []],
    ['charged more than its price', 100_000, 2, at.day, ['overcharged']],
    ['charged more than its price today', 100_000, 2, today, ['overcharged']],
    ['charged less than its price, a past day', 100_001, 1, at.day, ['uncharged']],
    ['charged less than its price today (the job posts it later)', 100_001, 1, today, []],
    ['no tokens, no charge', 0, 0, at.day, []],
  ])('a day %s', (_, tokens, cents, day, kinds) => {
    const on = { ...at, day };
    const charged =
      cents > 0
        ? [
            { ...on, cents: cents - 1 },
            { ...on, cents: 1 },
          ].filter((c) => c.cents > 0)
        : [];
    const differences = compareDays(
      [totals(tokens, 1, { day })],
      [totals(tokens, 1, { day })],
      charged,
      today,
    );
    expect(differences.map((d) => d.kind)).toEqual(kinds);
  });

  it('describes each difference on one line', () => {
    const lines = compareDays([totals(100_001, 2)], [totals(1, 1)], [{ ...at, cents: 5 }], today).map(
      describeDifference,
    );
    expect(lines).toEqual([
      'rollup org_1 scribe 2026-11-21: the log has 2 requests, 100001 input and 4 output tokens; the rollup has 1 requests, 1 input and 2 output tokens',
      "overcharged org_1 scribe 2026-11-21: the log's tokens cost 2 cents; 5 cents were charged",
    ]);
  });
});
