import { describe, expect, it } from 'vitest';
import { analyticsQuery, traceListQuery } from '../../../api/queries/schemas.ts';
import { encodeTraceCursor } from '../../../domain/tracing/queries-cursor.ts';

const firstIssuePath = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  result.error?.issues[0]?.path.join('.');

describe('the trace list query string', () => {
  it('defaults the page size to 50 and decodes the cursor', () => {
    const cursor = encodeTraceCursor({ startTimeUnixNano: 5n, traceId: 'a'.repeat(32) });
    expect(traceListQuery.parse({ cursor })).toMatchObject({
      limit: 50,
      cursor: { startTimeUnixNano: 5n, traceId: 'a'.repeat(32) },
    });
  });

  it.each([
    ['limit', { limit: '0' }],
    ['limit', { limit: '101' }],
    ['limit', { limit: '2.5' }],
    ['limit', { limit: 'ten' }],
    ['cursor', { cursor: 'bm90IGEgY3Vyc29y' }],
    ['from', { from: '2026-11-01' }],
    ['to', { from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z' }],
    ['kind', { kind: 'llm' }],
    ['session_id', { session_id: '' }],
  ])('refuses a bad %s', (param, query) => {
    expect(firstIssuePath(traceListQuery.safeParse(query))).toBe(param);
  });
});

describe('the analytics range', () => {
  it('defaults to the 7 days before now', () => {
    const { from, to } = analyticsQuery.parse({});
    expect(Math.abs(to.getTime() - Date.now())).toBeLessThan(5_000);
    expect(to.getTime() - from.getTime()).toBe(7 * 24 * 3600 * 1000);
  });

  it('accepts exactly 31 days, with offsets', () => {
    const range = analyticsQuery.parse({ from: '2026-10-01T02:00:00+02:00', to: '2026-11-01T00:00:00Z' });
    expect(range.from.toISOString()).toBe('2026-10-01T00:00:00.000Z');
  });

  it.each([
    ['from', { from: '2026-10-01T00:00:00Z', to: '2026-11-01T00:00:00.001Z' }],
    ['from', { from: '2020-01-01T00:00:00Z' }],
    ['to', { from: '2026-10-02T00:00:00Z', to: '2026-10-02T00:00:00Z' }],
    ['to', { to: 'yesterday' }],
  ])('refuses a bad %s', (param, query) => {
    expect(firstIssuePath(analyticsQuery.safeParse(query))).toBe(param);
  });
});
