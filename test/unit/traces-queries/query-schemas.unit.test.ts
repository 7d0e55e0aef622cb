import { describe, expect, it } from 'vitest';
import { analyticsQuery, sessionQuery, traceListQuery, userQuery } from '../../../api/queries/schemas.ts';
import { encodeSessionCursor, encodeTraceCursor } from '../../../domain/tracing/queries-cursor.ts';

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

describe("a session's and a user's query strings", () => {
  it('page 20 traces or sessions by default and decode their cursors', () => {
    const traceCursor = encodeTraceCursor({ startTimeUnixNano: 5n, traceId: 'a'.repeat(32) });
    expect(sessionQuery.parse({ cursor: traceCursor })).toEqual({
      limit: 20,
      cursor: { startTimeUnixNano: 5n, traceId: 'a'.repeat(32) },
    });
    const sessionCursor = encodeSessionCursor({ lastEndUnixNano: 9n, sessionId: 'chat-1' });
    expect(userQuery.parse({ cursor: sessionCursor, limit: '100' })).toEqual({
      limit: 100,
      cursor: { lastEndUnixNano: 9n, sessionId: 'chat-1' },
    });
  });

  it.each([
    [sessionQuery, { limit: '51' }],
    [sessionQuery, { limit: '0' }],
    [userQuery, { limit: '101' }],
  ])('refuses a page too large or empty (%#)', (schema, query) => {
    expect(firstIssuePath(schema.safeParse(query))).toBe('limit');
  });

  it('refuses a cursor it did not write', () => {
    expect(firstIssuePath(sessionQuery.safeParse({ cursor: 'bm90IGEgY3Vyc29y' }))).toBe('cursor');
    expect(firstIssuePath(userQuery.safeParse({ cursor: '!' }))).toBe('cursor');
  });
});
