import { describe, expect, it } from 'vitest';
import {
  type DeviceLogin,
  decidePoll,
  deviceLoginTiming,
  formatUserCode,
  parseUserCode,
} from '../../../domain/people/device-login.ts';

// RFC 8628's answers to a poll, and the user code a person types.

const now = new Date('2026-11-24T12:00:00Z');
const login = (overrides: Partial<DeviceLogin> = {}): DeviceLogin => ({
  status: 'pending',
  intervalSeconds: deviceLoginTiming.intervalSeconds,
  lastPolledAt: undefined,
  expiresAt: new Date(now.getTime() + 60_000),
  ...overrides,
});
const secondsAgo = (seconds: number) => new Date(now.getTime() - seconds * 1000);

describe('decidePoll', () => {
  it.each([
    ['a first poll of a pending login', login(), { kind: 'authorization_pending' }],
    ['a poll after the interval', login({ lastPolledAt: secondsAgo(5) }), { kind: 'authorization_pending' }],
    [
      'a poll sooner than the interval',
      login({ lastPolledAt: secondsAgo(2) }),
      { kind: 'slow_down', intervalSeconds: 10 },
    ],
    [
      'a slowed-down client, still too soon',
      login({ intervalSeconds: 10, lastPolledAt: secondsAgo(6) }),
      { kind: 'slow_down', intervalSeconds: 15 },
    ],
    ['an approved login', login({ status: 'approved', lastPolledAt: secondsAgo(5) }), { kind: 'collect' }],
    [
      'an approved login polled too soon',
      login({ status: 'approved', lastPolledAt: secondsAgo(1) }),
      { kind: 'slow_down', intervalSeconds: 10 },
    ],
    ['a denied login', login({ status: 'denied' }), { kind: 'access_denied' }],
    ['a collected login', login({ status: 'collected' }), { kind: 'invalid_grant' }],
    ['an expired login', login({ expiresAt: now }), { kind: 'expired_token' }],
    [
      'an approved login past its expiry',
      login({ status: 'approved', expiresAt: secondsAgo(1) }),
      { kind: 'expired_token' },
    ],
  ])('%s', (_name, given, expected) => {
    expect(decidePoll(given, now)).toEqual(expected);
  });
});

describe('user codes', () => {
  it('reads what a person types, in any case, with a dash or spaces', () => {
    expect(parseUserCode('wdjb-mjht')).toBe('WDJBMJHT');
    expect(parseUserCode(' WDJB MJHT ')).toBe('WDJBMJHT');
    expect(formatUserCode('WDJBMJHT')).toBe('WDJB-MJHT');
  });

  it.each(['WDJB-MJH', 'WDJB-MJHTX', 'WDJB-MJH0', 'AEIO-UUUU', ''])('refuses %j', (typed) => {
    expect(parseUserCode(typed)).toBeUndefined();
  });
});
