import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import { commandLength, isArgumentVector, type RunCommandLine } from '../domain/runs/command-line.ts';
import { invalidRequest } from '../domain/sandboxes/errors.ts';
import {
  type ExecResult,
  execOutputLimitBytes,
  execResult,
  timedOutExitCode,
} from '../domain/sandboxes/exec.ts';
import { execLimits } from '../domain/sandboxes/requests.ts';
import { createExecCgroup, joinDirs, killCgroup, removeCgroup } from './cgroups.ts';
import { drained, enterArgv, runCollecting } from './enter.ts';
import { hostEnv } from './host.ts';
import { refuseAtProcessLimit, refusedByLimit } from './process-limit.ts';
import { signalGroup } from './process-tree.ts';
import type { SandboxRecord } from './state.ts';

// exec (spec, `Sandbox.exec(command, { cwd?, env?, timeoutSeconds? })`): `/bin/sh -c <command>`
// as root inside the sandbox, waiting for it. Decisions where the spec is silent, shared with
// the domain (domain/sandboxes/exec.ts, requests.ts):
// - cwd defaults to `/root`; a cwd that does not exist fails like `cd` does (exit 2, a message);
// - the environment is only PATH, HOME, USER, LOGNAME and LANG, then the caller's `env` over it;
// - timeout 1 to 600 s, default 60: at the deadline the command's whole tree is killed (every
//   process it started, even in the background, through its own cgroup) and the exit code is
//   124, as coreutils' `timeout` answers;
// - stdout and stderr keep their first 1 MiB each; `truncated` says a stream lost bytes;
// - the answer comes when the command exits; background processes it started keep running in
//   the sandbox (that is how a desktop is started), they are only killed by a timeout;
// - a command that cannot start because the sandbox is at its process limit is refused with
//   `process_limit` (process-limit.ts), not answered with nsenter's words.

export interface ExecOptions {
  cwd?: string;
  env?: Record<string, string>;
  timeoutSeconds?: number;
}

export interface ExecOutcome {
  /** The spec's answer: `{ exit_code, stdout, stderr, truncated }`. */
  result: ExecResult;
  timedOut: boolean;
  durationMs: number;
}

export const execDefaults = {
  cwd: '/root',
  env: {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: '/root',
    USER: 'root',
    LOGNAME: 'root',
    LANG: 'C.UTF-8',
  },
} as const;

const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The runtime is called after the API parsed the request; it still refuses what it cannot run. */
export function checkExec(command: string, options: ExecOptions): Required<ExecOptions> {
  const timeoutSeconds = options.timeoutSeconds ?? execLimits.timeoutSeconds.default;
  if (
    !Number.isInteger(timeoutSeconds) ||
    timeoutSeconds < 1 ||
    timeoutSeconds > execLimits.timeoutSeconds.max
  ) {
    throw invalidRequest('timeout_seconds', 'send a whole number of seconds from 1 to 600');
  }
  return { ...checkCommand(command, options), timeoutSeconds };
}

/** The command, its working directory and its environment, as exec and streaming exec take them. */
function checkCommand(command: RunCommandLine, options: Pick<ExecOptions, 'cwd' | 'env'>) {
  const words = isArgumentVector(command) ? command : [command];
  if (
    words[0] === undefined ||
    words[0].length === 0 ||
    commandLength(command) > execLimits.commandLength ||
    words.some((word) => word.includes('\0'))
  ) {
    throw invalidRequest(
      'command',
      isArgumentVector(command)
        ? 'send a program and its arguments of 1 to 65,536 characters, without NUL'
        : 'send a shell command of 1 to 65,536 characters, without NUL',
    );
  }
  const cwd = options.cwd ?? execDefaults.cwd;
  if (!cwd.startsWith('/') || cwd.includes('\0')) throw invalidRequest('cwd', 'send an absolute path');
  const env = options.env ?? {};
  for (const [name, value] of Object.entries(env)) {
    if (!envName.test(name) || value.includes('\0')) {
      throw invalidRequest(
        'env',
        `send variable names of letters, digits and _ (not ${JSON.stringify(name)})`,
      );
    }
  }
  return { cwd, env };
}

export async function runExec(
  record: SandboxRecord,
  command: string,
  options: ExecOptions,
): Promise<ExecOutcome> {
  const { cwd, env, timeoutSeconds } = checkExec(command, options);
  const before = refuseAtProcessLimit(record);
  const started = Date.now();
  const execCgroup = createExecCgroup(record.cgroups);
  const argv = execArgv(record, execCgroup, command, cwd, env);
  try {
    const run = await runCollecting(argv, {
      keepBytes: execOutputLimitBytes,
      timeoutMs: timeoutSeconds * 1000,
      kill: async (pid) => {
        if (execCgroup === undefined || !(await killCgroup(execCgroup))) signalGroup(pid, 'SIGKILL');
      },
    });
    const atLimit = run.timedOut ? undefined : refusedByLimit(record, before, run.stderr, false);
    if (atLimit) throw atLimit;
    const exitCode = run.timedOut ? timedOutExitCode : run.exitCode;
    return {
      result: execResult(exitCode, run.stdout, run.stderr),
      timedOut: run.timedOut,
      durationMs: Date.now() - started,
    };
  } finally {
    // Fails, and stays, while processes the command left in the background still run.
    if (execCgroup !== undefined) removeCgroup(execCgroup);
  }
}

/**
 * `/bin/sh -c <command>` in `cwd` inside the sandbox, in its own cgroup when there is one; an
 * argument vector is executed as it is instead, after the same `cd` (the sandbox's `/bin/sh` is
 * dash, whose `exec` takes no options, so a first word such as `-x` is a program's name too).
 */
function execArgv(
  record: SandboxRecord,
  execCgroup: string | undefined,
  command: RunCommandLine,
  cwd: string,
  env: Record<string, string>,
): string[] {
  // `env -i` inside the sandbox sets the environment, so the caller's variables (LD_PRELOAD…)
  // never reach the host programs (sh, nsenter) that lead into it.
  const variables = Object.entries({ ...execDefaults.env, ...env }).map(
    ([name, value]) => `${name}=${value}`,
  );
  // The words travel as the shell's own arguments ($1, $2…), never inside its script, so none of
  // them is read as shell syntax.
  const shell = isArgumentVector(command)
    ? ['/bin/sh', '-c', 'cd -- "$1" && unset OLDPWD && shift && exec "$@"', 'orrery-exec', cwd, ...command]
    : ['/bin/sh', '-c', 'cd -- "$1" && unset OLDPWD && exec /bin/sh -c "$2"', 'orrery-exec', cwd, command];
  return enterArgv(record, joinDirs(record.cgroups, execCgroup), [
    '/usr/bin/env',
    '-i',
    ...variables,
    ...shell,
  ]);
}

// Streaming exec (issue 16, runs): the same command in the same way as `exec`, but its output is
// handed over as it comes instead of collected, with no cap and no timeout (a run's ceiling is
// its caller's to enforce), and the caller may kill it at any time. It also takes a run's
// argument vector (issue 50), executed with no shell. `exec` above is unchanged.

export type ExecStream = 'stdout' | 'stderr';

export interface StreamingExecOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Each chunk as the pipe gives it, in order per stream. */
  onOutput: (stream: ExecStream, chunk: Buffer) => void;
}

export interface StreamingExec {
  /**
   * The exit code (128 + the signal's number when killed) once the command has exited and its
   * output has been handed over; a background process still holding the pipes is not waited for
   * beyond a short drain.
   */
  done: Promise<number>;
  /** Kills the command's whole tree: every process it started, through its cgroup. */
  kill(): Promise<void>;
}

export function startExec(
  record: SandboxRecord,
  command: RunCommandLine,
  options: StreamingExecOptions,
): StreamingExec {
  const { cwd, env } = checkCommand(command, options);
  const execCgroup = createExecCgroup(record.cgroups);
  const argv = execArgv(record, execCgroup, command, cwd, env);
  const child = spawn(argv[0]!, argv.slice(1), {
    detached: true,
    env: hostEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pipes = { stdout: child.stdout as Readable, stderr: child.stderr as Readable };
  for (const stream of ['stdout', 'stderr'] as const)
    pipes[stream].on('data', (chunk: Buffer) => options.onOutput(stream, chunk));
  const kill = async () => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    // Its process group first: right after the start the command's shell may not have joined
    // its cgroup yet, and a kill of the cgroup, empty then, would miss it. Then the cgroup, for
    // what the command started in sessions of their own.
    signalGroup(child.pid, 'SIGKILL');
    if (execCgroup !== undefined) await killCgroup(execCgroup);
  };
  const done = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const exitCode = code ?? 128 + (signal === null ? 0 : constants.signals[signal]);
      void Promise.all([drained(pipes.stdout), drained(pipes.stderr)]).then(() => resolve(exitCode));
    });
  }).finally(() => {
    // Fails, and stays, while processes the command left in the background still run.
    if (execCgroup !== undefined) removeCgroup(execCgroup);
  });
  return { done, kill };
}
