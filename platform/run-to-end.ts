import { spawn } from 'node:child_process';

// Runs a host program to its end, keeping only the last of its output (an apt-get, a debootstrap
// or an image build prints megabytes): what a failure shows, and what the caller gets on success.

/** A program that ended with another exit code than 0, or by a signal. */
export class RunFailed extends Error {
  constructor(
    readonly command: string,
    readonly code: number | null,
    /** The last of its stdout and stderr. */
    readonly tail: string,
    described: string,
  ) {
    super(`${described} failed (${code}):\n${tail}`);
    this.name = 'RunFailed';
  }
}

export interface RunOptions {
  /** The whole environment of the program (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** How many characters of the output to keep (default 8,000). */
  keepChars?: number;
  /** The working directory (default: this process's). */
  cwd?: string;
  /** How the program is named in the error (default: the command and its arguments). */
  described?: string;
  /** Written to its standard input, which is then closed (default: no input). */
  input?: string;
}

export function runToEnd(
  command: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<string> {
  const keepChars = options.keepChars ?? 8000;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
    let tail = '';
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-keepChars);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(tail)
        : reject(new RunFailed(command, code, tail, options.described ?? `${command} ${args.join(' ')}`)),
    );
  });
}
