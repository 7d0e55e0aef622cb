// The cursor of the trace list (GET /api/traces): a keyset on (trace start, trace id), newest
// first. It names the last trace of a page, so the next page starts strictly after it whatever
// was inserted meanwhile: no trace is shown twice, and none that existed is skipped.

export interface TraceCursor {
  startTimeUnixNano: bigint;
  traceId: string;
}

/** Opaque to callers: base64url of `<start nanoseconds>.<trace id>`. */
export function encodeTraceCursor(cursor: TraceCursor): string {
  return Buffer.from(`${cursor.startTimeUnixNano}.${cursor.traceId}`, 'utf8').toString('base64url');
}

const maxUint64 = 2n ** 64n - 1n;

/** Undefined for anything `encodeTraceCursor` did not write. */
export function decodeTraceCursor(text: string): TraceCursor | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  const match = /^(\d{1,20})\.([0-9a-f]{32})$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!match) return undefined;
  const startTimeUnixNano = BigInt(match[1]!);
  if (startTimeUnixNano > maxUint64) return undefined;
  return { startTimeUnixNano, traceId: match[2]! };
}

// The cursor of a user's sessions (GET /api/users/:userId): a keyset on (last activity, session
// id), newest activity first, naming the last session of a page. A session id is any text the
// instrumentation sent, so it travels after the first dot, where no digit of the time can be.

export interface SessionCursor {
  lastEndUnixNano: bigint;
  sessionId: string;
}

/** Opaque to callers: base64url of `<last end nanoseconds>.<session id>`. */
export function encodeSessionCursor(cursor: SessionCursor): string {
  return Buffer.from(`${cursor.lastEndUnixNano}.${cursor.sessionId}`, 'utf8').toString('base64url');
}

/** Undefined for anything `encodeSessionCursor` did not write. */
export function decodeSessionCursor(text: string): SessionCursor | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  const match = /^(\d{1,20})\.([\s\S]*)$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!match) return undefined;
  const lastEndUnixNano = BigInt(match[1]!);
  if (lastEndUnixNano > maxUint64) return undefined;
  return { lastEndUnixNano, sessionId: match[2]! };
}
