import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { invalidRequest } from '../domain/sandboxes/errors.ts';
import { fileSizeLimitBytes } from '../domain/sandboxes/requests.ts';
import { joinDirs } from './cgroups.ts';
import { enterArgv, runCollecting } from './enter.ts';
import {
  type BodyHooks,
  type Entered,
  type Exit,
  feed,
  SinkFailed,
  sizedBody,
  spawnEntered,
} from './file-streams.ts';
import { refuseAtProcessLimit, refusedByLimit, type TaskCount } from './process-limit.ts';
import { signalGroup } from './process-tree.ts';
import type { SandboxRecord } from './state.ts';

// files.read(path) and files.write(path, contents) (spec: one file, up to 64 MB each). MB is read
// as MiB, 64 * 1024 * 1024 = 67,108,864 bytes, the larger reading, so nothing the spec allows is
// refused (domain/sandboxes/requests.ts holds the number).
//
// The host never resolves a path of the sandbox: reading and writing run inside the sandbox's
// namespaces and root (enter.ts), as root inside, so the kernel resolves every symlink against
// the sandbox's own `/`. A symlink aimed at a host path (`/work/…`, `../../../..`) lands on the
// sandbox's file of that name, never on the host's, and no race between a check and the open
// can change that. Paths whose `..` climb above `/` are refused outright. Relative paths are
// refused too (the spec's paths are absolute); writing creates the missing parent directories.
//
// Files stream: the HTTP layer passes them through an API replica and the sandbox host, and none
// of them may hold 64 MiB per request. `openSandboxFile` answers a size, then the bytes as the
// consumer takes them; `writeSandboxFileFrom` takes a stream and changes the file only once all
// of it arrived. The buffered forms (runtime.ts readFile, writeFile) are wrappers over these.
//
// Both fork inside the sandbox, so at its process limit they are refused with `process_limit`
// (process-limit.ts), before starting or once a fork of theirs was refused.

export const fileLimitBytes = fileSizeLimitBytes;

const fileTimeoutMs = 120_000;

const exitCodes = { missing: 44, notAFile: 45, noParent: 46, tooLarge: 47 } as const;

/** The path as the sandbox will see it, without `.`, `..` or repeated slashes. */
export function sandboxPath(path: string): string {
  if (!path.startsWith('/') || path.includes('\0') || path.length > 4096) {
    throw invalidRequest('path', 'send an absolute path inside the sandbox, starting with `/`');
  }
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part !== '..') parts.push(part);
    else if (parts.pop() === undefined) {
      throw invalidRequest(
        'path',
        "the path climbs above the sandbox's root with `..`: send a path inside it",
      );
    }
  }
  return `/${parts.join('/')}`;
}

export interface OpenedFile {
  sizeBytes: number;
  /** Exactly `sizeBytes` bytes; ends with an error if the file shrank while read. */
  bytes: Readable;
}

/**
 * One process checks the file and reads it, so a read costs one entry into the sandbox: the
 * script opens the file as its stdin, so the size it prints and the bytes `head` sends are those
 * of the same open file, even if the path is replaced meanwhile. `head -c` stops at that size
 * when the file grew; a file that shrank ends short, and the body says so.
 */
const readScript =
  `[ -e "$1" ] || exit ${exitCodes.missing}; [ -f "$1" ] || exit ${exitCodes.notAFile}; ` +
  `exec < "$1"; size=$(stat -L -c %s /dev/stdin) || exit; [ "$size" -le "$2" ] || exit ${exitCodes.tooLarge}; ` +
  'echo "$size"; exec head -c "$size"';

/** Longest first line the read script prints: a size. */
const headerBytes = 32;

/** Resolves once the file is known to be a regular file within the limit; then streams it. */
export function openSandboxFile(record: SandboxRecord, path: string): Promise<OpenedFile> {
  const file = sandboxPath(path);
  const limit = atLimit(record, refuseAtProcessLimit(record));
  const entered = spawnEntered(
    enterArgv(record, joinDirs(record.cgroups), [
      ...['/bin/sh', '-c', readScript, 'orrery-read', file, String(fileLimitBytes)],
    ]),
    { timeoutMs: fileTimeoutMs },
  );
  const stdout = entered.child.stdout as Readable;
  return new Promise<OpenedFile>((resolve, reject) => {
    let header = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      header = Buffer.concat([header, chunk]);
      const newline = header.indexOf(10);
      if (newline === -1 && header.length <= headerBytes) return;
      stop();
      const line = newline === -1 ? '' : header.subarray(0, newline).toString();
      const sizeBytes = Number(line);
      if (!/^\d+$/.test(line) || sizeBytes > fileLimitBytes) {
        entered.kill();
        return reject(new Error(`read of ${file}: the sandbox answered no size`));
      }
      const first = header.subarray(newline + 1);
      resolve({ sizeBytes, bytes: sizedBody(stdout, sizeBytes, first, bodyHooks(entered, file, sizeBytes)) });
    };
    // Ended before a size: the script refused (or died), and its exit code says why.
    const onEnd = () => {
      stop();
      entered.exited.then((exit) => reject(refusal(exit, file, 'read', limit)), reject);
    };
    const stop = () => {
      stdout.off('data', onData);
      stdout.off('end', onEnd);
      stdout.off('close', onEnd);
    };
    stdout.on('data', onData);
    stdout.on('end', onEnd);
    stdout.on('close', onEnd);
  });
}

function bodyHooks(entered: Entered, file: string, sizeBytes: number): BodyHooks {
  return {
    short: async (received) => {
      const exit = await entered.exited;
      if (exit.timedOut) return timeoutError(file, 'read');
      const got = `${received} of its ${sizeBytes} bytes`;
      if (exit.exitCode === 0) return new Error(`${file} shrank while it was read: ${got} came`);
      return new Error(
        `read of ${file} failed after ${got}: ${stderrReason(exit) || `exit ${exit.exitCode}`}`,
      );
    },
    stop: async () => {
      entered.kill();
      await entered.exited;
    },
  };
}

export interface Written {
  path: string;
  size_bytes: number;
}

/**
 * The body goes to a temporary file beside the destination, which replaces the destination only
 * once the host confirmed, on fd 3, how many bytes it sent and the file holds that many: a body
 * cut short (refused, failed, the host gone) never lands. The link is resolved inside the
 * sandbox (`readlink -f` in its root), so the file is replaced, not the link; an existing file's
 * owner and mode pass to its replacement (owner first: chown clears setuid bits). The trap
 * removes the temporary file on every exit but SIGKILL; after a kill the host removes it.
 */
const writeScript = [
  `mkdir -p -- "$(dirname -- "$1")" || exit ${exitCodes.noParent}`,
  'target=$(readlink -f -- "$1") || { echo "a link on the way leads to a folder that does not exist" >&2; exit 1; }',
  `[ ! -d "$target" ] || exit ${exitCodes.notAFile}`,
  `[ ! -e "$target" ] || [ -f "$target" ] || exit ${exitCodes.notAFile}`,
  'temp="$(dirname -- "$target")/$2"',
  `trap 'rm -f -- "$temp"' EXIT`,
  `trap 'exit 1' HUP INT TERM PIPE`,
  // Announced before it exists, so the host knows what to remove whenever it kills the script.
  `printf '%s\\0' "$temp"`,
  'set -C',
  'cat > "$temp" || exit 1',
  'read -r count <&3 || exit 1',
  '[ "$(stat -c %s -- "$temp")" = "$count" ] || { echo "the file holds other than the $count bytes sent" >&2; exit 1; }',
  'if [ -e "$target" ]; then chown --reference="$target" -- "$temp" && chmod --reference="$target" -- "$temp" || exit 1; fi',
  'mv -f -T -- "$temp" "$target" || exit 1',
  'trap - EXIT',
].join('\n');

export interface WriteOptions {
  /** The length the sender announced (Content-Length): a body of another length is refused. */
  declaredBytes?: number;
}

/**
 * Streams `source` into the file; on any failure the file is as it was. On a refusal the source
 * is left paused where reading stopped, not destroyed (feed, file-streams.ts); an error of the
 * source itself is thrown as it is.
 */
export async function writeSandboxFileFrom(
  record: SandboxRecord,
  path: string,
  source: Readable,
  options: WriteOptions = {},
): Promise<Written> {
  const file = sandboxPath(path);
  const declared = checkDeclared(options.declaredBytes);
  const limit = atLimit(record, refuseAtProcessLimit(record));
  const temp = `.orrery-write-${randomBytes(12).toString('hex')}`;
  const entered = spawnEntered(
    enterArgv(record, joinDirs(record.cgroups), ['/bin/sh', '-c', writeScript, 'orrery-write', file, temp]),
    { input: true, control: true, collectStdout: true, timeoutMs: fileTimeoutMs },
  );
  const stdin = entered.child.stdin as Writable;
  const control = entered.child.stdio[3] as Writable;
  try {
    const count = await Promise.race([
      feed(source, stdin, (count) => overBudget(count, declared)),
      entered.exited.then(() => {
        throw new SinkFailed('the write ended before the body');
      }),
    ]);
    if (declared !== undefined && count !== declared) throw shortOfDeclared(count, declared);
    stdin.end();
    control.end(`${count}\n`);
    const exit = await entered.exited;
    if (exit.exitCode !== 0) throw refusal(exit, file, 'write', limit);
    return { path: file, size_bytes: count };
  } catch (error) {
    throw await abandonWrite(record, entered, file, error, limit);
  }
}

/** Kills the write, removes its temporary file, and answers the error to throw. */
async function abandonWrite(
  record: SandboxRecord,
  entered: Entered,
  file: string,
  error: unknown,
  limit: AtLimit,
) {
  entered.kill();
  (entered.child.stdin as Writable).destroy();
  (entered.child.stdio[3] as Writable).destroy();
  const exit = await entered.exited;
  const temp = announcedTemp(exit.stdout);
  if (temp !== undefined) await removeTemp(record, temp);
  if (exit.timedOut) return timeoutError(file, 'write');
  // The child stopped on its own: its exit code is the reason (a folder, a missing parent…).
  if (error instanceof SinkFailed) return refusal(exit, file, 'write', limit);
  return error;
}

function announcedTemp(stdout: Buffer): string | undefined {
  const end = stdout.indexOf(0);
  return end === -1 ? undefined : stdout.subarray(0, end).toString();
}

/** A second entry into the sandbox: a killed script ran no trap. */
async function removeTemp(record: SandboxRecord, temp: string): Promise<void> {
  try {
    await runCollecting(enterArgv(record, joinDirs(record.cgroups), ['/bin/rm', '-f', '--', temp]), {
      keepBytes: 4096,
      timeoutMs: 10_000,
      kill: (pid) => signalGroup(pid, 'SIGKILL'),
    });
  } catch {
    // The sandbox lost its processes meanwhile; a dot-file is all that stays.
  }
}

const tooLarge = () => invalidRequest('contents', 'send at most 64 MiB (67,108,864 bytes) per file');

function checkDeclared(declared: number | undefined): number | undefined {
  if (declared === undefined) return undefined;
  if (!Number.isSafeInteger(declared) || declared < 0) {
    throw invalidRequest('contents', 'declare the length of the body as a whole number of bytes');
  }
  if (declared > fileLimitBytes) throw tooLarge();
  return declared;
}

function overBudget(count: number, declared: number | undefined): Error | undefined {
  if (count > fileLimitBytes) return tooLarge();
  if (declared !== undefined && count > declared) {
    return invalidRequest(
      'contents',
      `the body is longer than the ${declared} bytes it declared: send exactly that many`,
    );
  }
  return undefined;
}

function shortOfDeclared(count: number, declared: number): Error {
  return invalidRequest(
    'contents',
    `the body ended after ${count} of the ${declared} bytes it declared: send them all`,
  );
}

function timeoutError(file: string, verb: string): Error {
  return new Error(`${verb} of ${file} took over ${fileTimeoutMs / 1000} s and was stopped`);
}

function stderrReason(run: { stderr: Buffer }): string {
  return run.stderr
    .toString()
    .trim()
    .replace(/^orrery-\w+: \d+: /, '');
}

/** Whether a script that failed did so at the sandbox's process limit (process-limit.ts). */
type AtLimit = (exit: Exit) => Error | undefined;

function atLimit(record: SandboxRecord, before: TaskCount | undefined): AtLimit {
  return (exit) => refusedByLimit(record, before, exit.stderr, true);
}

/** The refusal an exit code of the scripts stands for. */
function refusal(exit: Exit, file: string, verb: string, limit: AtLimit): Error {
  if (exit.timedOut) return timeoutError(file, verb);
  const atProcessLimit = limit(exit);
  if (atProcessLimit) return atProcessLimit;
  const reason = stderrReason(exit);
  switch (exit.exitCode) {
    case exitCodes.missing:
      return invalidRequest('path', `No file at ${file} in the sandbox: check the path.`);
    case exitCodes.notAFile:
      return invalidRequest('path', `${file} is not a regular file: send the path of a file.`);
    case exitCodes.tooLarge:
      return invalidRequest(
        'path',
        `${file} is larger than 64 MiB (67,108,864 bytes), the most one read returns`,
      );
    case exitCodes.noParent:
      return invalidRequest('path', `Cannot create the folders above ${file}: ${reason}`);
    default:
      return invalidRequest('path', `Cannot ${verb} ${file}: ${reason || `exit ${exit.exitCode}`}`);
  }
}
