// Why the live screen ended, in the page's words, read from the close the API sent: its code and
// reason (the API's own, or the sandbox host's passed on). One table; a close not in it is said
// by its code. test/unit/sandboxes/screen-closes.unit.test.ts checks that every close the
// platform sends (domain/sandboxes/screen-closes.ts) has its own words here.

/** How the connection ended, as `<SandboxScreen>`'s `onDisconnect` tells it (@orrery/sandbox). */
export interface ScreenDisconnect {
  clean: boolean;
  /** The close's code and reason, when the connection was opened. */
  code?: number;
  reason?: string;
}

export interface ScreenEnd {
  words: string;
  /** Whether a new token may show the screen again, so the page offers "Connect again". */
  reconnect: boolean;
}

interface KnownClose extends ScreenEnd {
  code: number;
  reason: string;
}

const knownCloses: readonly KnownClose[] = [
  {
    code: 1000,
    reason: 'token expired',
    words: 'The screen disconnected: its token expired.',
    reconnect: true,
  },
  {
    code: 1008,
    reason: 'token revoked',
    words: 'The screen closed: the API key that minted its token was revoked.',
    reconnect: true,
  },
  {
    code: 1008,
    reason: 'removed from the org',
    words: 'You were removed from this org, so the screen closed.',
    reconnect: false,
  },
  {
    code: 1008,
    reason: 'unsupported RFB message',
    words: 'The screen closed: this page sent the desktop something the API could not read.',
    reconnect: true,
  },
  {
    code: 1000,
    reason: 'desktop stopped',
    words: 'The screen closed: the desktop stopped.',
    reconnect: true,
  },
  { code: 1000, reason: 'stopped', words: 'The screen closed: the sandbox stopped.', reconnect: true },
  { code: 1000, reason: 'deleted', words: 'The screen closed: the sandbox was destroyed.', reconnect: false },
  {
    code: 1000,
    reason: 'lost',
    words: 'The screen closed: the sandbox was lost with its host.',
    reconnect: false,
  },
  { code: 1000, reason: 'restarted', words: 'The screen closed: the sandbox restarted.', reconnect: true },
  {
    code: 1011,
    reason: 'desktop connection failed',
    words: "The screen lost its connection to the sandbox's desktop.",
    reconnect: true,
  },
  {
    code: 1011,
    reason: 'sandbox host connection lost',
    words: "The screen lost its connection to the sandbox's host.",
    reconnect: true,
  },
  {
    code: 1001,
    reason: 'stopped',
    words: "The screen closed: Orrery's API or the sandbox's host is restarting.",
    reconnect: true,
  },
];

const connectionLost: ScreenEnd = { words: 'The screen lost its connection.', reconnect: true };

/** The words for a close the platform sends, or `undefined` for any other. */
export function knownScreenEnd(close: { code: number; reason: string }): ScreenEnd | undefined {
  return knownCloses.find((known) => known.code === close.code && known.reason === close.reason);
}

export function screenEnd({ clean, code, reason }: ScreenDisconnect): ScreenEnd {
  const known = code === undefined || reason === undefined ? undefined : knownScreenEnd({ code, reason });
  if (known) return { words: known.words, reconnect: known.reconnect };
  // 1006: no close frame arrived (the network, or a refused handshake); 1011: a server's failure.
  if (code === 1006 || code === 1011 || (code === undefined && !clean)) return connectionLost;
  return {
    words: reason ? `The screen disconnected (${reason}).` : 'The screen disconnected.',
    reconnect: true,
  };
}
