// A run's output (issue 16): stdout and stderr kept apart, each numbered from 1, so a reader
// picks up where it left off and a script still tells the streams apart. What the command prints
// is gathered into chunks rather than one event per line or per pipe read: a chunk is appended
// when it holds `flushBytes`, or `flushMs` after its first byte, whichever first, so a chatty
// command costs a few events a second and a quiet one shows its line within a fifth of a second.

export const outputBatching = { flushMs: 200, flushBytes: 64 * 1024 } as const;

/**
 * Kept per stream per run: enough for any log a person reads; past it the rest is dropped (and
 * counted in the API's log), so a command printing in a loop cannot fill the topic and the disk.
 */
export const outputLimitBytes = 16 * 1024 * 1024;
