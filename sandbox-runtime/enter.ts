import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import { confinedCapabilities, confinementFiles, sandboxConfinementDir } from './confine.ts';
import { hostEnv, hostProgram } from './host.ts';
import { joinCgroupsArgv } from './process-tree.ts';
import type { SandboxRecord } from './state.ts';

// Running a program inside a running sandbox, as exec and files do: the process joins the
// sandbox's cgroups, then nsenter moves it into every namespace of the sandbox's init, chroots
// to the init's root and becomes root inside (the first uid of its range outside). It sees only the sandbox:
// its files, its processes, its loopback. The program is the sandbox's own (`/bin/sh` from its
// filesystem), and nothing of the caller's environment reaches the host programs on the way.
// Between nsenter and the program, the sandbox's `confine` gives it the capabilities and the
// seccomp filter its init has (confine.ts), so nothing runs in a sandbox unconfined.

export function enterArgv(record: SandboxRecord, cgroupDirs: string[], command: string[]): string[] {
  if (record.init === null) throw new Error(`sandbox ${record.id} has no init`);
  const namespaces = ['--user', '--mount', '--pid', '--ipc', '--uts', '--net', '--cgroup'];
  const nsenter = [hostProgram('nsenter'), '-t', String(record.init.pid), ...namespaces, '--root'];
  const filtered =
    record.confinement === null
      ? command
      : [
          `${sandboxConfinementDir}/${confinementFiles.loader}`,
          `${sandboxConfinementDir}/${confinementFiles.filter}`,
          confinedCapabilities,
          ...command,
        ];
  return joinCgroupsArgv(cgroupDirs, [...nsenter, '--setuid', '0', '--setgid', '0', '--', ...filtered]);
}

export interface Collected {
  exitCode: number;
  stdout: Buffer;
  stderr: Buffer;
  /** Bytes the stream produced, kept or not. */
  stdoutBytes: number;
  stderrBytes: number;
  timedOut: boolean;
}

export interface RunOptions {
  stdin?: Uint8Array;
  /** Bytes kept per stream; one more is kept so a cut can be placed on a character boundary. */
  keepBytes: number;
  /** Stop the program as soon as stdout exceeds `keepBytes` (a file read past its limit). */
  stopOverKeep?: boolean;
  timeoutMs?: number;
  /** Ends the program's whole tree (its cgroup, or its process group). */
  kill: (pid: number) => Promise<void> | void;
}

/**
 * Runs `argv` to its end and collects its output. The answer comes when the program exits: a
 * background process it left holding the pipes is not waited for beyond a short drain.
 */
export function runCollecting(argv: string[], options: RunOptions): Promise<Collected> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      detached: true,
      env: hostEnv,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let timedOut = false;
    const stop = () => {
      if (child.pid !== undefined) void Promise.resolve(options.kill(child.pid)).catch(() => {});
    };
    const stdout = collect(child.stdout as Readable, options.keepBytes + 1, (total) => {
      if (options.stopOverKeep && total > options.keepBytes) stop();
    });
    const stderr = collect(child.stderr as Readable, options.keepBytes + 1);
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            stop();
          }, options.timeoutMs);
    child.stdin?.on('error', () => {}); // the program may exit before reading it all
    child.stdin?.end(options.stdin);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const exitCode = code ?? 128 + (signal === null ? 0 : constants.signals[signal]);
      void Promise.all([stdout.drained(), stderr.drained()]).then(() =>
        resolve({
          exitCode,
          stdout: stdout.bytes(),
          stderr: stderr.bytes(),
          stdoutBytes: stdout.total(),
          stderrBytes: stderr.total(),
          timedOut,
        }),
      );
    });
  });
}

/** Resolves once the pipe closed, or after 250 ms if a leftover background process holds it. */
export function drained(stream: Readable, closed = stream.closed || stream.destroyed): Promise<void> {
  return new Promise((resolve) => {
    if (closed) return resolve();
    const timer = setTimeout(() => {
      stream.destroy();
      resolve();
    }, 250);
    stream.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function collect(stream: Readable, keep: number, onData?: (total: number) => void) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  let closed = false;
  stream.on('data', (chunk: Buffer) => {
    total += chunk.length;
    if (kept < keep) {
      const part = chunk.subarray(0, keep - kept);
      chunks.push(part);
      kept += part.length;
    }
    onData?.(total);
  });
  stream.on('close', () => {
    closed = true;
  });
  return {
    bytes: () => Buffer.concat(chunks),
    total: () => total,
    drained: () => drained(stream, closed),
  };
}
