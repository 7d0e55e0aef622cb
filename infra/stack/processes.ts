import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname } from 'node:path';
import { poll } from '../../platform/poll.ts';

/** A component's daemon: started detached, tracked by a pid file, logging to one file. */
export interface Daemon {
  name: string;
  pidFile: string;
  logFile: string;
}

export function readPid(daemon: Daemon): number | undefined {
  const pid = recordedPid(daemon);
  return pid !== undefined && isAlive(pid) ? pid : undefined;
}

/** The pid in the daemon's pid file, alive or not; none once `stopDaemon` removed the file. */
export function recordedPid(daemon: Daemon): number | undefined {
  if (!existsSync(daemon.pidFile)) return undefined;
  const pid = Number(readFileSync(daemon.pidFile, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** A crash: the pid file is there (an intended stop removes it) but its process is gone. */
export function crashed(daemon: Daemon): boolean {
  const pid = recordedPid(daemon);
  return pid !== undefined && !isAlive(pid);
}

/**
 * Kills what is left of a crashed daemon's process group (a postmaster's backends hold its
 * shared memory, and a new postmaster refuses to start beside them) and waits until it is empty.
 */
export async function clearProcessGroup(pid: number, timeoutMs = 10_000): Promise<void> {
  const cleared = await poll(
    () => {
      if (!groupAlive(pid)) return true;
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // emptied meanwhile
      }
      return false;
    },
    { timeoutMs, intervalMs: 100 },
  );
  if (!cleared) throw new Error(`process group ${pid} outlived SIGKILL for ${timeoutMs} ms`);
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface SpawnOptions {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * Postgres refuses to run as root. As root, such a server runs in a user namespace where it is
   * an ordinary user, while its files stay owned by the caller outside: no system user, no chown.
   */
  unprivileged?: boolean;
}

function wrapUnprivileged(command: string, args: string[], unprivileged?: boolean): [string, string[]] {
  if (!unprivileged || process.getuid?.() !== 0) return [command, args];
  return ['unshare', ['--user', '--map-user=1000', '--map-group=1000', command, ...args]];
}

export function startDaemon(daemon: Daemon, options: SpawnOptions): number {
  mkdirSync(dirname(daemon.logFile), { recursive: true });
  mkdirSync(dirname(daemon.pidFile), { recursive: true });
  const log = openSync(daemon.logFile, 'a');
  const [command, args] = wrapUnprivileged(options.command, options.args, options.unprivileged);
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  if (child.pid === undefined) throw new Error(`${daemon.name}: could not start ${options.command}`);
  child.unref();
  writeFileSync(daemon.pidFile, String(child.pid));
  return child.pid;
}

/**
 * Sends SIGTERM to the daemon's process group, then SIGKILL if it outlives the grace period. The
 * pid file goes first: a daemon that has ended with its pid file still there crashed, and the
 * stack's watcher (supervise.ts) would start it again.
 */
export async function stopDaemon(daemon: Daemon, graceMs = 20_000): Promise<boolean> {
  const pid = readPid(daemon);
  rmSync(daemon.pidFile, { force: true });
  if (pid === undefined) return false;
  signalGroup(pid, 'SIGTERM');
  if (await poll(() => !isAlive(pid), { timeoutMs: graceMs, intervalMs: 200 })) return true;
  signalGroup(pid, 'SIGKILL');
  await poll(() => !isAlive(pid), { timeoutMs: Number.POSITIVE_INFINITY, intervalMs: 100 });
  return true;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

export function portOpen(port: number, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it answers true; fails naming the component, its port and its log. */
export async function waitUntil(
  daemon: Daemon,
  port: number,
  check: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const outcome = await poll(
    async () => {
      if (await check().catch(() => false)) return 'healthy';
      // Its pid file is there but names no live process: it died starting; waiting is pointless.
      return readPid(daemon) === undefined && existsSync(daemon.pidFile) ? 'died' : undefined;
    },
    { timeoutMs, intervalMs: 500 },
  );
  if (outcome === 'healthy') return;
  throw new Error(
    `${daemon.name} is not healthy on port ${port} after ${Math.round(timeoutMs / 1000)} s; read ${daemon.logFile}\n` +
      tail(daemon.logFile, 15),
  );
}

export function tail(file: string, lines: number): string {
  if (!existsSync(file)) return '(no log yet)';
  return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
}

/** Runs a command to completion, failing with its output. */
export function run(
  command: string,
  args: string[],
  options: { unprivileged?: boolean; env?: NodeJS.ProcessEnv } = {},
): string {
  const [cmd, argv] = wrapUnprivileged(command, args, options.unprivileged);
  const result = spawnSync(cmd, argv, { encoding: 'utf8', env: { ...process.env, ...options.env } });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

export function commandExists(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}
