import { invalidRequest } from '../domain/sandboxes/errors.ts';
import { fileSizeLimitBytes } from '../domain/sandboxes/requests.ts';
import { joinDirs } from './cgroups.ts';
import { enterArgv, runCollecting } from './enter.ts';
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

export const fileLimitBytes = fileSizeLimitBytes;

const fileTimeoutMs = 120_000;

const exitCodes = { missing: 44, notAFile: 45, noParent: 46 } as const;

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

export async function readSandboxFile(record: SandboxRecord, path: string): Promise<Uint8Array> {
  const file = sandboxPath(path);
  const script = `[ -e "$1" ] || exit ${exitCodes.missing}; [ -f "$1" ] || exit ${exitCodes.notAFile}; exec cat -- "$1"`;
  const run = await runCollecting(
    enterArgv(record, joinDirs(record.cgroups), ['/bin/sh', '-c', script, 'orrery-read', file]),
    {
      keepBytes: fileLimitBytes,
      stopOverKeep: true,
      timeoutMs: fileTimeoutMs,
      kill: (pid) => signalGroup(pid, 'SIGKILL'),
    },
  );
  if (run.stdoutBytes > fileLimitBytes) {
    throw invalidRequest(
      'path',
      `${file} is larger than 64 MiB (67,108,864 bytes), the most one read returns`,
    );
  }
  refuse(run, file, 'read');
  return new Uint8Array(run.stdout.buffer, run.stdout.byteOffset, run.stdout.length);
}

export async function writeSandboxFile(
  record: SandboxRecord,
  path: string,
  contents: Uint8Array,
): Promise<{ path: string; size_bytes: number }> {
  const file = sandboxPath(path);
  if (contents.length > fileLimitBytes) {
    throw invalidRequest('contents', 'send at most 64 MiB (67,108,864 bytes) per file');
  }
  const script =
    `mkdir -p -- "$(dirname -- "$1")" || exit ${exitCodes.noParent}; [ ! -d "$1" ] || exit ${exitCodes.notAFile}; ` +
    'exec cat > "$1"';
  const run = await runCollecting(
    enterArgv(record, joinDirs(record.cgroups), ['/bin/sh', '-c', script, 'orrery-write', file]),
    {
      stdin: contents,
      keepBytes: 64 * 1024,
      timeoutMs: fileTimeoutMs,
      kill: (pid) => signalGroup(pid, 'SIGKILL'),
    },
  );
  refuse(run, file, 'write');
  return { path: file, size_bytes: contents.length };
}

function refuse(
  run: { exitCode: number; stderr: Buffer; timedOut: boolean },
  file: string,
  verb: string,
): void {
  if (run.timedOut) throw new Error(`${verb} of ${file} took over ${fileTimeoutMs / 1000} s and was stopped`);
  const reason = run.stderr
    .toString()
    .trim()
    .replace(/^orrery-\w+: \d+: /, '');
  switch (run.exitCode) {
    case 0:
      return;
    case exitCodes.missing:
      throw invalidRequest('path', `No file at ${file} in the sandbox: check the path.`);
    case exitCodes.notAFile:
      throw invalidRequest('path', `${file} is not a regular file: send the path of a file.`);
    case exitCodes.noParent:
      throw invalidRequest('path', `Cannot create the folders above ${file}: ${reason}`);
    default:
      throw invalidRequest('path', `Cannot ${verb} ${file}: ${reason || `exit ${run.exitCode}`}`);
  }
}
