import type { Scope } from '../orgs/events.ts';

// The command-line login (RFC 8628, OAuth 2.0 device authorization grant): the CLI shows a user
// code, a person approves it on the dashboard, the CLI polls until it can collect an org key.

/**
 * The key a login gives (spec 000, Authentication 2): tracing and sandboxes, never
 * `inference:invoke`, which only a key made under Settings holds.
 */
export const loginKeyScopes: readonly Scope[] = ['traces:write', 'sandboxes:write'];

/** RFC 8628 §6.1: consonants only (no words, no 0/O or 1/I), 8 of them: 20^8 ≈ 2^34.6. */
export const userCodeAlphabet = 'BCDFGHJKLMNPQRSTVWXZ';
export const userCodeLength = 8;

export const deviceLoginTiming = {
  /** How long a code may be approved and collected (GitHub's CLI login: 15 minutes). */
  lifetimeSeconds: 900,
  /** The polling interval the CLI is told, and how much `slow_down` adds (RFC 8628 §3.5). */
  intervalSeconds: 5,
  slowDownSeconds: 5,
} as const;

/** `WDJBMJHT` is shown as `WDJB-MJHT`. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** What a person typed (any case, dash or spaces) as the stored code, or undefined if it cannot be one. */
export function parseUserCode(typed: string): string | undefined {
  const code = typed.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== userCodeLength) return undefined;
  return [...code].every((letter) => userCodeAlphabet.includes(letter)) ? code : undefined;
}

export type DeviceLoginStatus = 'pending' | 'approved' | 'denied' | 'collected';

export interface DeviceLogin {
  status: DeviceLoginStatus;
  intervalSeconds: number;
  lastPolledAt: Date | undefined;
  expiresAt: Date;
}

/** RFC 8628 §3.5's answers to a poll, and `collect` when the key may be made and handed over. */
export type PollOutcome =
  | { kind: 'collect' }
  | { kind: 'authorization_pending' }
  | { kind: 'slow_down'; intervalSeconds: number }
  | { kind: 'access_denied' }
  | { kind: 'expired_token' }
  /** Collected already: a device code gives one key. */
  | { kind: 'invalid_grant' };

export function decidePoll(login: DeviceLogin, now: Date): PollOutcome {
  if (login.status === 'collected') return { kind: 'invalid_grant' };
  if (login.status === 'denied') return { kind: 'access_denied' };
  if (login.expiresAt.getTime() <= now.getTime()) return { kind: 'expired_token' };
  const sinceLastMs = login.lastPolledAt ? now.getTime() - login.lastPolledAt.getTime() : Infinity;
  // A little slack: a timer firing a few milliseconds early is not a client ignoring the interval.
  if (sinceLastMs < login.intervalSeconds * 1000 - 250)
    return { kind: 'slow_down', intervalSeconds: login.intervalSeconds + deviceLoginTiming.slowDownSeconds };
  return login.status === 'approved' ? { kind: 'collect' } : { kind: 'authorization_pending' };
}
