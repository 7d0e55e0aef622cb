import { describe, expect, it } from 'vitest';
import {
  isSessionLive,
  isTouchDue,
  sessionExpiry,
  sessionLifetime,
} from '../../../domain/people/sessions.ts';

const day = 24 * 60 * 60 * 1000;
const at = (ms: number) => new Date(Date.UTC(2026, 10, 1) + ms);

describe('session lifetime', () => {
  it('lasts a week after its last use, and a month at most', () => {
    expect(sessionExpiry(at(0), at(0))).toEqual(at(7 * day));
    expect(sessionExpiry(at(0), at(10 * day))).toEqual(at(17 * day));
    expect(sessionExpiry(at(0), at(28 * day))).toEqual(at(sessionLifetime.absoluteMs));
  });

  it('is live until its expiry, and touched at most once a minute', () => {
    const session = { createdAt: at(0), lastSeenAt: at(0), expiresAt: at(day) };
    expect(isSessionLive(session, at(day - 1))).toBe(true);
    expect(isSessionLive(session, at(day))).toBe(false);
    expect(isTouchDue(session, at(59_999))).toBe(false);
    expect(isTouchDue(session, at(60_000))).toBe(true);
  });
});
