import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { ensureDebianPackages } from '../../../platform/debian-packages.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { freePort } from '../../harness/ports.ts';
import { givenRunApi, type RunApi } from '../runs/given.ts';
import type { TestClock } from '../sandboxes/given.ts';

// The `orrery` tool as scripts and people run it: the real binary in a child process, with an
// environment and a home of its own, against the platform started in the test process and
// listening on a port of its own.
//
// Time: the login polls every `interval` (5) seconds. The tool's waits are divided by
// ORRERY_TEST_TIME_SCALE and the API's clock runs that many times faster than real time, so both
// sides agree on how long every wait was: the server's own rule (a poll sooner than the interval
// is `slow_down`) judges the tool's polling, yet a poll costs 250 ms. The test can still move the
// clock (`advance`) for what the tool never waits for, such as a code expiring.

export const timeScale = 20;
export const bin = resolve(import.meta.dirname, '../../../packages/cli/bin/orrery.mjs');
const exitRecorder = resolve(import.meta.dirname, 'exit-recorder.mjs');

/** A clock running `scale` times faster than real time from now, which the test can also move. */
export function acceleratedClock(scale: number): TestClock {
  const start = Date.now();
  let offsetMs = 0;
  return {
    now: () => new Date(start + (Date.now() - start) * scale + offsetMs),
    advance: (seconds) => {
      offsetMs += seconds * 1000;
    },
  };
}

/** An RFC 6749 answer to one poll of the token endpoint: `200` or its `error`. */
export type PollOutcome = string;

export interface CliPlatform {
  platform: TestPlatform;
  url: string;
  clock: TestClock;
  /** Every poll of the token endpoint's outcome, in order. */
  polls: PollOutcome[];
  /** Called as each poll is answered, before the tool reads the answer. */
  onPoll: ((outcome: PollOutcome) => void) | undefined;
  stop(): Promise<void>;
}

/** A field the API does not send, added to these answers to show `--json` keeps what it does not know. */
export const unknownField = { orrery_test_unknown: { kept: true } };
const widened = new Set(['/api/me', '/api/billing/summary']);

function observe(api: FastifyInstance, cli: Pick<CliPlatform, 'polls' | 'onPoll'>): void {
  api.addHook('onSend', async (request, reply, payload) => {
    const path = request.url.split('?')[0]!;
    if (path === '/api/auth/device/token' && typeof payload === 'string') {
      const outcome = reply.statusCode === 200 ? '200' : String(JSON.parse(payload).error);
      cli.polls.push(outcome);
      cli.onPoll?.(outcome);
    }
    if (widened.has(path) && reply.statusCode === 200 && typeof payload === 'string')
      return JSON.stringify({ ...JSON.parse(payload), ...unknownField });
    return payload;
  });
}

export async function startCliPlatform(): Promise<CliPlatform> {
  const clock = acceleratedClock(timeScale);
  const cli = { polls: [] as PollOutcome[], onPoll: undefined as CliPlatform['onPoll'] };
  const platform = await startTestPlatform({ clock: clock.now, beforeReady: (api) => observe(api, cli) });
  await platform.api.listen({ host: '127.0.0.1', port: await freePort() });
  const { port } = platform.api.server.address() as AddressInfo;
  return Object.assign(cli, {
    platform,
    url: `http://127.0.0.1:${port}`,
    clock,
    stop: () => platform.stop(),
  });
}

/** A home of its own (config directory inside), removed by `remove`. */
export async function newHome(): Promise<{ home: string; configDir: string; remove(): Promise<void> }> {
  const home = await mkdtemp(join(tmpdir(), 'orrery-cli-'));
  return {
    home,
    configDir: join(home, 'config', 'orrery'),
    remove: () => rm(home, { recursive: true, force: true }),
  };
}

export interface CliEnv {
  home: string;
  url: string;
  /** More variables, or `undefined` to leave one out. */
  extra?: Record<string, string | undefined>;
}

/** Only what is given: nothing of the test's own environment (keys, colours) leaks in. */
export function cliEnv({ home, url, extra = {} }: CliEnv): Record<string, string> {
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    ORRERY_API_URL: url,
    ORRERY_TEST_TIME_SCALE: String(timeScale),
    ...extra,
  };
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => !!entry[1]));
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  /** Resolves with the first match in stderr so far or to come; rejects if the tool ends first. */
  stderrMatching(pattern: RegExp): Promise<RegExpMatchArray>;
  finished: Promise<Finished>;
}

/** Starts `orrery <args>` with its stdout and stderr piped. */
export function startCli(args: string[], env: CliEnv): Running {
  const child = spawn(process.execPath, [bin, ...args], {
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: (() => void)[] = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const waiter of [...waiters]) waiter();
  });
  const finished = new Promise<Finished>((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
  return {
    child,
    finished,
    stderrMatching: (pattern) =>
      new Promise((resolvePromise, reject) => {
        const check = () => {
          const match = stderr.match(pattern);
          if (!match) return;
          waiters.splice(waiters.indexOf(check), 1);
          resolvePromise(match);
        };
        waiters.push(check);
        check();
        finished.then(() => reject(new Error(`orrery ended before stderr matched ${pattern}:\n${stderr}`)));
      }),
  };
}

/** Runs `orrery <args>` to its end. */
export const runCli = (args: string[], env: CliEnv): Promise<Finished> => startCli(args, env).finished;

/**
 * Runs `orrery <args>` with a pseudo-terminal as its stdin, stdout and stderr (util-linux
 * `script`), as a person at a terminal does; the two streams arrive merged.
 */
export function runCliInTerminal(args: string[], env: CliEnv): Promise<Finished> {
  const command = [process.execPath, bin, ...args]
    .map((word) => `'${word.replaceAll("'", `'\\''`)}'`)
    .join(' ');
  const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
    env: cliEnv({ ...env, extra: { TERM: 'xterm-256color', ...env.extra } }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  return new Promise((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout: output, stderr: '' }));
  });
}

/** Whether text holds an ANSI escape (SGR or any other CSI sequence). */
export const hasEscapes = (text: string) => text.includes('\u001b[');

/**
 * The run API of runs/given.ts (real sandboxes on this host) listening on a port of its own, its
 * run and catalog answers carrying a field the API does not send (`unknownField`, at the top and
 * in each run or size), to show `--json` keeps what the tool does not know. `losePlacingAnswer`
 * cuts the connection of the next placing of a run of that name once the run is placed, as a
 * network that drops the answer does.
 */
export async function startRunCliPlatform(): Promise<{
  api: RunApi;
  url: string;
  losePlacingAnswer(name: string): void;
}> {
  const losing = new Set<string>();
  const api = await givenRunApi({}, (app) =>
    app.addHook('onSend', async (request, reply, payload) => {
      const path = request.url.split('?')[0]!;
      const name = (request.body as { name?: unknown } | undefined)?.name;
      if (
        request.method === 'POST' &&
        path === '/api/runs' &&
        typeof name === 'string' &&
        losing.delete(name)
      ) {
        request.raw.socket.destroy();
        return payload;
      }
      const widen =
        path === '/api/catalog' || (path.startsWith('/api/runs') && !/\/(output|result)$/.test(path));
      if (!widen || reply.statusCode >= 300 || typeof payload !== 'string') return payload;
      const answer = JSON.parse(payload) as { data: unknown };
      const data = Array.isArray(answer.data)
        ? answer.data.map((item) => ({ ...item, ...unknownField }))
        : { ...(answer.data as object), ...unknownField };
      return JSON.stringify({ ...answer, data, ...unknownField });
    }),
  );
  const url = api.baseUrl;
  return { api, url, losePlacingAnswer: (name) => losing.add(name) };
}

const execFileAsync = promisify(execFile);

/** A pseudo-terminal of tmux's (a server of its own) running `orrery <args>`, as a person at a terminal. */
export interface Terminal {
  /** What the screen shows (with its colours as SGR escapes when `escapes`). */
  screen(escapes?: boolean): Promise<string>;
  /** Waits until the screen shows the pattern. */
  showing(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Presses keys, in tmux's names (`C-c`). */
  press(keys: string): Promise<void>;
  /** Waits for the tool to end; its exit code. */
  exitCode(timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

let terminals = 0;

export async function runCliInTmux(args: string[], env: CliEnv & { home: string }): Promise<Terminal> {
  await ensureDebianPackages([{ pkg: 'tmux', present: () => existsSync('/usr/bin/tmux') }], () => {});
  const socket = join(env.home, `tmux-${++terminals}.sock`);
  const tmux = async (...words: string[]) =>
    (await execFileAsync('tmux', ['-S', socket, ...words], { env: cliEnv(env) })).stdout;
  // The pane stays once the tool ends, so its screen can be read; how it ended is written to a
  // file by exit-recorder.mjs, its parent in the terminal.
  const ending = join(env.home, `tmux-${terminals}.exit.json`);
  await tmux(
    ...['-f', '/dev/null', 'new-session', '-d', '-s', 'cli', '-x', '200', '-y', '50'],
    ...['--', process.execPath, exitRecorder, ending, process.execPath, bin, ...args],
    ...[';', 'set-option', '-t', 'cli', 'remain-on-exit', 'on'],
  );
  const screen = (escapes = false) =>
    tmux('capture-pane', '-p', '-J', ...(escapes ? ['-e'] : []), '-S', '-', '-t', 'cli');
  return {
    screen,
    showing: (pattern, timeoutMs = 60_000) =>
      eventually(
        async () => {
          const text = await screen();
          return pattern.test(text) ? text : undefined;
        },
        timeoutMs,
        `the terminal to show ${pattern}`,
      ),
    press: async (keys) => {
      await tmux('send-keys', '-t', 'cli', keys);
    },
    exitCode: (timeoutMs = 30_000) =>
      eventually(
        async () => {
          if (!existsSync(ending)) return undefined;
          const { code, signal } = JSON.parse(readFileSync(ending, 'utf8')) as {
            code: number | null;
            signal: string | null;
          };
          if (code === null) throw new Error(`the tool was killed by ${signal}`);
          return code;
        },
        timeoutMs,
        'the tool to end in the terminal',
      ),
    close: async () => {
      await tmux('kill-server').catch(() => {});
    },
  };
}
