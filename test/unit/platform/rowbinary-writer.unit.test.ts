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

  it('copies bytes short and long alike, after a prefix too, and writes an array length as a varint', () => {
    const source = Buffer.from(`--${'a'.repeat(31)}|${'b'.repeat(300)}--`);
    const rows = new RowBinaryWriter();
    rows.stringBytes(source, 2, 33);
    rows.stringBytes(source, 34, 334);
    rows.prefixedStringBytes(Buffer.from('0001'), source, 2, 5);
    rows.stringOf(Buffer.from('id'));
    rows.arrayLength(300);
    const bytes = rows.bytes();
    expect(bytes.subarray(0, 32)).toEqual(Buffer.from([31, ...Buffer.from('a'.repeat(31))]));
    expect([...bytes.subarray(32, 34)]).toEqual([0xac, 0x02]);
    expect(bytes.subarray(34, 334).toString()).toBe('b'.repeat(300));
    expect(bytes.subarray(334)).toEqual(
      Buffer.from([7, ...Buffer.from('0001aaa'), 2, ...Buffer.from('id'), 0xac, 0x02]),
    );
  });
});
