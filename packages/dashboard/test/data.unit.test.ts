import { describe, expect, it } from 'vitest';
import type { Charge, SpanOutline } from '../src/api/types.ts';
import { chartRows, lastUtcDays } from '../src/billing/days.ts';
import { dollars, duration, fractionOfCents, none, requestCost, usd, usdPrice } from '../src/format.ts';
import { newerSearch, olderSearch } from '../src/paging.ts';
import { personName } from '../src/requests/made-by.tsx';
import { spanRows } from '../src/tracing/span-rows.ts';

describe('format', () => {
  it('writes cents as dollars, a negative balance too', () => {
    expect(dollars(0)).toBe('$0.00');
    expect(dollars(5)).toBe('$0.05');
    expect(dollars(123_456)).toBe('$1,234.56');
    expect(dollars(-5)).toBe('-$0.05');
    // A chart's axis may ask for a fraction of a cent: it reads as the nearest cent.
    expect(dollars(0.75)).toBe('$0.01');
    expect(dollars(0.25)).toBe('$0.00');
  });

  it("prices a request's input tokens in cents, a fraction of a cent with its digits", () => {
    expect(requestCost(120, 10)).toBe('0.0012¢');
    expect(requestCost(1_000_000, 250)).toBe('250.00¢');
    expect(requestCost(0, 10)).toBe('0¢');
    // The API's cost of one request (GET /api/inference/requests/{id}), already in cents.
    expect(fractionOfCents(0.0012)).toBe('0.0012¢');
    expect(fractionOfCents(12.5)).toBe('12.50¢');
  });

  it('writes a cost in USD to the cent from a cent up, and a smaller one with its significant digits', () => {
    expect(usd(1.234)).toBe('$1.23');
    expect(usd(1234.567)).toBe('$1,234.57');
    expect(usd(0.01)).toBe('$0.01');
    // gpt-4o-mini's 1000 input and 200 output tokens, whose sum in floating point is not exact.
    expect(usd(1000 * 0.15e-6 + 200 * 0.6e-6)).toBe('$0.00027');
    expect(usd(0.00024)).toBe('$0.00024');
    expect(usd(0.000123456789)).toBe('$0.000123457');
    // One token at a tenth of a dollar per million: no exponent, and not rounded away to $0.
    expect(usd(1e-7)).toBe('$0.0000001');
    expect(usd(0.0099999996)).toBe('$0.01');
    expect(usd(0)).toBe('$0.00');
  });

  it('says none for no cost, never $0', () => {
    expect(usd(null)).toBe(none);
    expect(none).toBe('none');
  });

  it('writes a price per million tokens with the digits it was set with', () => {
    expect(usdPrice(2.5)).toBe('$2.50');
    expect(usdPrice(0.075)).toBe('$0.075');
    expect(usdPrice(0.125)).toBe('$0.125');
    expect(usdPrice(0.005)).toBe('$0.005');
    expect(usdPrice(0.0000001)).toBe('$0.0000001');
    expect(usdPrice(10_000)).toBe('$10,000.00');
    expect(usdPrice(0)).toBe('$0.00');
  });

  it('writes durations in ms below a second, in s above', () => {
    expect(duration(3.456)).toBe('3.46 ms');
    expect(duration(840)).toBe('840 ms');
    expect(duration(1250)).toBe('1.25 s');
  });
});

describe('paging in the address', () => {
  it('goes older and back newer through the cursors it came by, the filters kept', () => {
    const first = new URLSearchParams({ model: 'scribe' });
    const second = olderSearch(first, 'c2');
    const third = olderSearch(second, 'c3');
    expect(third.get('cursor')).toBe('c3');
    expect(third.getAll('before')).toEqual(['c2', '']);
    const back = newerSearch(third);
    expect(back.get('cursor')).toBe('c2');
    expect(back.getAll('before')).toEqual(['']);
    const start = newerSearch(back);
    expect(start.get('cursor')).toBeNull();
    expect(start.getAll('before')).toEqual([]);
    expect(start.get('model')).toBe('scribe');
  });
});

describe('the Billing chart', () => {
  it('has the 30 UTC days up to today, each model 0 where it had no charge', () => {
    const today = new Date('2026-03-01T23:30:00Z');
    expect(lastUtcDays(today).slice(-2)).toEqual(['2026-02-28', '2026-03-01']);
    const charge = (day: string, model: string, cents: number): Charge => ({
      day,
      model,
      cents,
      requests: 1,
      input_tokens: 1,
      output_tokens: 0,
    });
    const { rows, models } = chartRows(
      [charge('2026-03-01', 'b', 3), charge('2026-03-01', 'a', 2), charge('2025-12-01', 'old', 9)],
      today,
    );
    expect(models).toEqual(['a', 'b']);
    expect(rows).toHaveLength(30);
    expect(rows.at(-1)).toEqual({ day: '2026-03-01', a: 2, b: 3 });
    expect(rows[0]).toEqual({ day: '2026-01-31', a: 0, b: 0 });
  });
});

describe("a trace's rows", () => {
  const node = (id: string, start: number, end: number, children: SpanOutline[] = []) =>
    ({
      span_id: id,
      start_time_unix_nano: `${start}000000`,
      end_time_unix_nano: `${end}000000`,
      children,
    }) as unknown as SpanOutline;

  it('walks the tree depth first, each bar placed on the trace time', () => {
    const rows = spanRows([
      node('root', 1000, 2000, [node('a', 1000, 1500, [node('a1', 1100, 1200)]), node('b', 1500, 2000)]),
    ]);
    expect(rows.map((row) => [row.span.span_id, row.depth])).toEqual([
      ['root', 0],
      ['a', 1],
      ['a1', 2],
      ['b', 1],
    ]);
    expect(rows[2]).toMatchObject({ offset: 0.1, width: 0.1, startsAtMs: 100 });
    expect(rows[3]).toMatchObject({ offset: 0.5, width: 0.5 });
  });

  it('has no rows for no spans', () => {
    expect(spanRows([])).toEqual([]);
  });
});

describe('who made a request', () => {
  it('names the person who sent a Playground request, and one who left', () => {
    expect(personName({ id: 'person_1', name: 'Ada' })).toBe('Ada');
    expect(personName({ id: 'person_1', name: null })).toBe('someone no longer in the org');
  });
});
