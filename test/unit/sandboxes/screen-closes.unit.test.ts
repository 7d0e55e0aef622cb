import { describe, expect, it } from 'vitest';
import { screenCloses } from '../../../domain/sandboxes/screen-closes.ts';
import { knownScreenEnd, screenEnd } from '../../../packages/dashboard/src/sandboxes/screen-ends.ts';

// Every close a page may hear from the live screen (domain/sandboxes/screen-closes.ts) has words
// of its own on the dashboard's screen (packages/dashboard/src/sandboxes/screen-ends.ts): a close
// added on the platform without them fails here, not in a person's browser.

describe("the dashboard's words for how a live screen ended", () => {
  it.each(Object.entries(screenCloses))('%s has its own', (_name, close) => {
    expect(knownScreenEnd(close)).toBeDefined();
  });

  it('says each close differently', () => {
    const words = Object.values(screenCloses).map((close) => knownScreenEnd(close)?.words);
    expect(new Set(words).size).toBe(words.length);
  });

  it('tells a person removed from the org so, and offers no new connection', () => {
    expect(screenEnd({ clean: true, ...screenCloses.personRemoved })).toEqual({
      words: 'You were removed from this org, so the screen closed.',
      reconnect: false,
    });
  });

  it.each([
    ['an expired token', { clean: true, ...screenCloses.tokenExpired }, /token expired/, true],
    ['a revoked key', { clean: true, ...screenCloses.keyRevoked }, /was revoked/, true],
    ['a stopped desktop', { clean: true, ...screenCloses.desktopStopped }, /desktop stopped/, true],
    ['a stopped sandbox', { clean: true, ...screenCloses.sandboxStopped }, /sandbox stopped/, true],
    [
      'a shutdown, the same reason as a stopped sandbox',
      { clean: true, ...screenCloses.shuttingDown },
      /restarting/,
      true,
    ],
    [
      'a lost connection, no close frame',
      { clean: false, code: 1006, reason: '' },
      /lost its connection/,
      true,
    ],
    ['noVNC not loaded', { clean: false }, /lost its connection/, true],
    ['a close of a newer API', { clean: true, code: 1000, reason: 'moved' }, /disconnected \(moved\)/, true],
    ['the page disconnecting', { clean: true, code: 1005, reason: '' }, /^The screen disconnected\.$/, true],
  ])('%s', (_name, disconnect, words, reconnect) => {
    const end = screenEnd(disconnect);
    expect(end.words).toMatch(words);
    expect(end.reconnect).toBe(reconnect);
  });
});
