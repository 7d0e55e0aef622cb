// The answer of `exec` (spec, `Sandbox` methods: `{ exit_code, stdout, stderr, truncated }`).
// The spec caps the output without saying where; we keep the first 1 MiB of each stream, cut at
// a UTF-8 character boundary so the text stays valid, and say `truncated: true` if either lost
// bytes. A command stopped by its timeout answers exit code 124, as coreutils `timeout` does.

export const execOutputLimitBytes = 1024 * 1024;
export const timedOutExitCode = 124;

export interface ExecResult {
  exit_code: number;
  stdout: string;
  stderr: string;
  truncated: boolean;
}

const decoder = new TextDecoder();

/** The first `limit` bytes at most, without splitting a character; invalid UTF-8 shows as U+FFFD. */
export function capOutput(
  bytes: Uint8Array,
  limit = execOutputLimitBytes,
): { text: string; truncated: boolean } {
  if (bytes.length <= limit) return { text: decoder.decode(bytes), truncated: false };
  let cut = limit;
  // Continuation bytes are 10xxxxxx: step back to the start of the character that straddles the cut.
  while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) cut--;
  return { text: decoder.decode(bytes.subarray(0, cut)), truncated: true };
}

export function execResult(
  exitCode: number,
  stdout: Uint8Array,
  stderr: Uint8Array,
  limit = execOutputLimitBytes,
): ExecResult {
  const out = capOutput(stdout, limit);
  const err = capOutput(stderr, limit);
  return {
    exit_code: exitCode,
    stdout: out.text,
    stderr: err.text,
    truncated: out.truncated || err.truncated,
  };
}
