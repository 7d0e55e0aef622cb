import { describe, expect, it } from 'vitest';
import { chooseRange, listWindow, quickRanges, rangeOf, rangeStart } from '../src/time-range.ts';
import { columnVisibility, showColumn, shownColumns, traceColumns } from '../src/tracing/trace-columns.ts';

const now = new Date('2026-03-01T12:34:56.789Z');

describe('quick time ranges', () => {
  it('are the last hour, 24 hours, 7 days and 30 days', () => {
    expect(quickRanges.map((range) => range.id)).toEqual(['1h', '24h', '7d', '30d']);
  });

  it('start the range before now, to the minute', () => {
    const [hour, day, week, month] = quickRanges;
    expect(rangeStart(hour, now)).toBe('2026-03-01T11:34:00.000Z');
    expect(rangeStart(day, now)).toBe('2026-02-28T12:34:00.000Z');
    expect(rangeStart(week, now)).toBe('2026-02-22T12:34:00.000Z');
    expect(rangeStart(month, now)).toBe('2026-01-30T12:34:00.000Z');
  });

  it("read the address's range, unless From or To replaces it", () => {
    expect(rangeOf(new URLSearchParams('range=24h'), 'range', ['from', 'to'])?.id).toBe('24h');
    expect(
      rangeOf(new URLSearchParams('range=24h&from=2026-01-01T00:00:00.000Z'), 'range', ['from', 'to']),
    ).toBe(undefined);
    expect(rangeOf(new URLSearchParams('range=2w'), 'range')).toBeUndefined();
    expect(rangeOf(new URLSearchParams('analytics_range=30d'), 'analytics_range')?.id).toBe('30d');
  });

  it('are chosen in the address, the times and cursors they replace removed, the rest kept', () => {
    const search = new URLSearchParams('name=lookup&from=2026-01-01T00:00:00.000Z&cursor=c2&before=&live=1');
    const chosen = chooseRange(search, 'range', '7d', ['from', 'to', 'cursor', 'before']);
    expect(chosen.toString()).toBe('name=lookup&live=1&range=7d');
    expect(chooseRange(chosen, 'range', undefined).toString()).toBe('name=lookup&live=1');
    expect(chooseRange(new URLSearchParams('range=1h'), 'analytics_range', '24h').toString()).toBe(
      'range=1h&analytics_range=24h',
    );
  });

  it("give a list's window: From and To as given, or the range's start at now", () => {
    expect(listWindow(new URLSearchParams('range=1h&model=x'), now)).toEqual({
      from: '2026-03-01T11:34:00.000Z',
    });
    expect(listWindow(new URLSearchParams('from=2026-01-01T00:00:00.000Z&range=1h'), now)).toEqual({
      from: '2026-01-01T00:00:00.000Z',
    });
    expect(listWindow(new URLSearchParams('to=2026-02-01T00:00:00.000Z'), now)).toEqual({
      to: '2026-02-01T00:00:00.000Z',
    });
    expect(listWindow(new URLSearchParams('model=x'), now)).toEqual({});
  });
});

describe("the trace list's columns", () => {
  it('shows them all without `columns`, those listed with it, in the table order', () => {
    expect(shownColumns(new URLSearchParams())).toEqual(traceColumns);
    expect(shownColumns(new URLSearchParams('columns=cost,model,nonsense'))).toEqual(['model', 'cost']);
    expect(shownColumns(new URLSearchParams('columns='))).toEqual([]);
  });

  it('hides and shows a column in the address, dropping `columns` when all are shown', () => {
    const hidden = showColumn(new URLSearchParams('name=x'), 'model', false);
    expect(hidden.get('name')).toBe('x');
    expect(hidden.get('columns')).toBe(traceColumns.filter((name) => name !== 'model').join(','));
    const again = showColumn(hidden, 'model', true);
    expect(again.has('columns')).toBe(false);
    expect(showColumn(new URLSearchParams('columns=cost'), 'spans', true).get('columns')).toBe('spans,cost');
    expect(showColumn(new URLSearchParams('columns=cost'), 'cost', false).get('columns')).toBe('');
  });

  it("is @tanstack/react-table's visibility", () => {
    expect(columnVisibility(['model'])).toMatchObject({ model: true, cost: false, started: false });
    expect(Object.keys(columnVisibility([]))).toEqual(traceColumns);
  });
});
