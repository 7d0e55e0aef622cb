import { describe, expect, it } from 'vitest';
import {
  decodeSessionCursor,
  decodeTraceCursor,
  encodeSessionCursor,
  encodeTraceCursor,
} from '../../../domain/tracing/queries-cursor.ts';

const traceId = '0af7651916cd43dd8448eb211c80319c';

describe('trace list cursor', () => {
  it.each([0n, 1_700_000_000_123_456_789n, 2n ** 64n - 1n])('round-trips a start of %s ns', (start) => {
    const text = encodeTraceCursor({ startTimeUnixNano: start, traceId });
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeTraceCursor(text)).toEqual({ startTimeUnixNano: start, traceId });
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'a+b/c='],
    ['no separator', Buffer.from(`123${traceId}`).toString('base64url')],
    ['a start past UInt64', Buffer.from(`${2n ** 64n}.${traceId}`).toString('base64url')],
    ['a negative start', Buffer.from(`-1.${traceId}`).toString('base64url')],
    ['a short trace id', Buffer.from('123.abc').toString('base64url')],
    ['an upper-case trace id', Buffer.from(`123.${traceId.toUpperCase()}`).toString('base64url')],
    ['SQL in the trace id', Buffer.from(`123.${traceId}' OR 1=1`).toString('base64url')],
  ])('refuses %s', (_, text) => {
    expect(decodeTraceCursor(text)).toBeUndefined();
  });
});

describe("a user's sessions cursor", () => {
  it.each(['chat-1', '', 'a.b.c', 'ü/ser 42', '123.456', "x' OR 1=1"])(
    'round-trips the session %j',
    (sessionId) => {
      const text = encodeSessionCursor({ lastEndUnixNano: 1_700_000_000_123_456_789n, sessionId });
      expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeSessionCursor(text)).toEqual({ lastEndUnixNano: 1_700_000_000_123_456_789n, sessionId });
    },
  );

  it.each([
    ['empty', ''],
    ['not base64url', 'a+b/c='],
    ['no separator', Buffer.from('123').toString('base64url')],
    ['a time past UInt64', Buffer.from(`${2n ** 64n}.chat`).toString('base64url')],
    ['a negative time', Buffer.from('-1.chat').toString('base64url')],
  ])('refuses %s', (_, text) => {
    expect(decodeSessionCursor(text)).toBeUndefined();
  });
});
