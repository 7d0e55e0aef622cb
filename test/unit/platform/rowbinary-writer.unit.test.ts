import { describe, expect, it } from 'vitest';
import { RowBinaryWriter } from '../../../platform/clickhouse-rowbinary.ts';

// The spans projection keeps a writer from one insert to the next (projections/spans-clickhouse.ts):
// after `clear`, the bytes are the new rows alone, however much the writer held before.

describe('RowBinaryWriter', () => {
  it('writes a String as its varint length and UTF-8 bytes, and a UInt64 from its halves', () => {
    const rows = new RowBinaryWriter();
    rows.string('é'.repeat(100));
    rows.uint64(1, 2);
    expect([...rows.bytes().subarray(0, 2)]).toEqual([200, 1]);
    expect(rows.bytes().subarray(2, 202).toString('utf8')).toBe('é'.repeat(100));
    expect([...rows.bytes().subarray(202)]).toEqual([1, 0, 0, 0, 2, 0, 0, 0]);
  });

  it('after clear, holds only what was written since, keeping the buffer it grew', () => {
    const rows = new RowBinaryWriter();
    rows.string('x'.repeat(200_000));
    const grown = rows.capacity;
    expect(grown).toBeGreaterThanOrEqual(200_003);
    rows.clear();
    expect(rows.bytes().length).toBe(0);
    rows.string('ab');
    expect([...rows.bytes()]).toEqual([2, 97, 98]);
    expect(rows.capacity).toBe(grown);
  });
});
