import { describe, expect, it } from 'vitest';
import {
  type FactsPart,
  type PartitionParts,
  partitionsToCompact,
  readAsPlanned,
  receiptDay,
  receiptHourRange,
  settledHours,
} from '../../../projections/span-facts-layout.ts';

// span_facts is read without FINAL only where a receipt hour is one merged part; these are the
// rules that decide it, and when the compaction job makes an hour so.

const part = (name: string): FactsPart => {
  const [partition, , , level] = name.split('_');
  return { partition: partition!, name, level: Number(level) };
};

describe('receipt hour partitions', () => {
  it('are the hour [start, end) and the UTC day of their id', () => {
    expect(receiptHourRange('2026112423')).toEqual({
      start: new Date('2026-11-24T23:00:00Z'),
      end: new Date('2026-11-25T00:00:00Z'),
    });
    expect(receiptDay('2026112423')).toBe('20261124');
  });

  it.each(['20261124', 'tuple()', '2026112423_1'])('refuses %s as an hour', (id) => {
    expect(() => receiptHourRange(id)).toThrow(/not a span_facts partition/);
  });
});

describe('settled hours', () => {
  it.each([
    ['one merged part', ['2026112410_1_9_2'], ['2026112410'], []],
    ['one merged part, mutated since', ['2026112410_1_9_2_14'], ['2026112410'], []],
    ['one insert, never merged', ['2026112410_3_3_0'], [], ['2026112410']],
    ['a merged part and an insert', ['2026112410_1_9_2', '2026112410_10_10_0'], [], ['2026112410']],
    ['two merged parts', ['2026112410_1_5_1', '2026112410_6_9_1'], [], ['2026112410']],
    [
      'hours apart',
      ['2026112409_1_4_1', '2026112410_5_5_0', '2026112411_6_8_1'],
      ['2026112409', '2026112411'],
      ['2026112410'],
    ],
  ])('%s', (_, names, settled, unsettled) => {
    const plan = settledHours(names.map(part));
    expect([...plan.settled.keys()].sort()).toEqual(settled);
    expect(plan.unsettled).toEqual(unsettled);
  });
});

describe('a read as planned', () => {
  const plan = settledHours(['2026112409_1_4_1', '2026112410_5_5_0'].map(part));

  it('holds when every hour read as stored is still its one part', () => {
    expect(readAsPlanned(plan, ['2026112409_1_4_1', '2026112410_5_5_0', '2026112410_6_6_0'].map(part))).toBe(
      true,
    );
  });

  it.each([
    ['a part arrived in a settled hour', ['2026112409_1_4_1', '2026112409_7_7_0']],
    ['a settled hour merged with a new part', ['2026112409_1_7_2']],
    ['a mutation rewrote a settled hour', ['2026112409_1_4_1_8']],
    ['a new hour appeared', ['2026112409_1_4_1', '2026112411_9_9_0']],
    ['a new hour appeared already merged', ['2026112409_1_4_1', '2026112411_9_9_1']],
  ])('fails when %s', (_, after) => {
    expect(readAsPlanned(plan, after.map(part))).toBe(false);
  });

  it('holds when a settled hour was dropped meanwhile (retention)', () => {
    expect(readAsPlanned(plan, ['2026112410_5_5_0'].map(part))).toBe(true);
  });
});

describe('hours to compact', () => {
  const now = new Date('2026-11-24T12:00:00Z');
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
  const hour = (overrides: Partial<PartitionParts>): PartitionParts => ({
    partition: '2026112411',
    parts: 3,
    minLevel: 0,
    newestAt: ago(5),
    oldestInsertAt: ago(30),
    ...overrides,
  });

  it.each([
    [
      'one merged part',
      hour({ parts: 1, minLevel: 1, oldestInsertAt: undefined, newestAt: ago(3600) }),
      false,
    ],
    ['quiet for a minute', hour({ newestAt: ago(60) }), true],
    ['still receiving, unsettled for 9 minutes', hour({ oldestInsertAt: ago(540) }), false],
    ['still receiving, unsettled for 10 minutes', hour({ oldestInsertAt: ago(600) }), true],
    ['one insert, quiet', hour({ parts: 1, newestAt: ago(120) }), true],
    [
      'two merged parts, quiet',
      hour({ parts: 2, minLevel: 1, oldestInsertAt: undefined, newestAt: ago(90) }),
      true,
    ],
  ])('%s: %s', (_, partition, due) => {
    expect(partitionsToCompact([partition], now)).toEqual(due ? ['2026112411'] : []);
  });

  it('lists them oldest first', () => {
    const quiet = { newestAt: ago(120) };
    expect(
      partitionsToCompact(
        [hour({ partition: '2026112411', ...quiet }), hour({ partition: '2026112409', ...quiet })],
        now,
      ),
    ).toEqual(['2026112409', '2026112411']);
  });
});
