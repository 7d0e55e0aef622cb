// How long a dashboard session lives: a week after it was last used, a month at most (then the
// person logs in again). Its last use is written at most once a minute, not on every request.
const minute = 60_000;
const day = 24 * 60 * minute;

export const sessionLifetime = { idleMs: 7 * day, absoluteMs: 30 * day, touchEveryMs: minute } as const;

export interface SessionTimes {
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

export function sessionExpiry(createdAt: Date, now: Date): Date {
  return new Date(
    Math.min(now.getTime() + sessionLifetime.idleMs, createdAt.getTime() + sessionLifetime.absoluteMs),
  );
}

export function isSessionLive(session: SessionTimes, now: Date): boolean {
  return session.expiresAt.getTime() > now.getTime();
}

/** Whether this use should move `lastSeenAt` and the expiry (a write). */
export function isTouchDue(session: SessionTimes, now: Date): boolean {
  return now.getTime() - session.lastSeenAt.getTime() >= sessionLifetime.touchEveryMs;
}
