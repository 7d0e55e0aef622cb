import type { MinterGone } from './tokens.ts';

// How a live screen ends, as the page hears it (spec 002, "Embeddable screen": `onDisconnect`
// fires when the token expired, the desktop stopped, …): the WebSocket's close code and reason.
// The API closes with its own (api/sandboxes/screen.ts) and passes on the host's
// (sandbox-host/screen.ts); the dashboard says each in its words, and
// test/unit/sandboxes/screen-closes.unit.test.ts checks it has words for every one of these.

export interface ScreenClose {
  code: number;
  reason: string;
}

export const screenCloses = {
  /** The token's lifetime ran out (spec, "Authentication" 6). */
  tokenExpired: { code: 1000, reason: 'token expired' },
  /** The API key that minted the token was revoked (spec, "Authentication" 6). */
  keyRevoked: { code: 1008, reason: 'token revoked' },
  /** The person who minted the token left the org or was removed from it (spec, "Authentication" 6). */
  personRemoved: { code: 1008, reason: 'removed from the org' },
  /** A `view` page sent what the RFB filter cannot read. */
  inputUnreadable: { code: 1008, reason: 'unsupported RFB message' },
  desktopStopped: { code: 1000, reason: 'desktop stopped' },
  sandboxStopped: { code: 1000, reason: 'stopped' },
  sandboxDeleted: { code: 1000, reason: 'deleted' },
  sandboxLost: { code: 1000, reason: 'lost' },
  sandboxRestarted: { code: 1000, reason: 'restarted' },
  /** The host lost its VNC connection to the desktop. */
  desktopFailed: { code: 1011, reason: 'desktop connection failed' },
  /** The API lost its connection to the host, or the host closed without one of these. */
  hostLost: { code: 1011, reason: 'sandbox host connection lost' },
  /** The API replica or the sandbox host is shutting down. */
  shuttingDown: { code: 1001, reason: 'stopped' },
} as const satisfies Record<string, ScreenClose>;

/** How a screen closes once its token's minter no longer vouches for it. */
export const minterGoneCloses: Record<MinterGone, ScreenClose> = {
  key_revoked: screenCloses.keyRevoked,
  person_removed: screenCloses.personRemoved,
};
