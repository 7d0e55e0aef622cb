import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execOutputLimitBytes } from '../../../domain/sandboxes/exec.ts';
import { givenRuntime, prepareTimeoutMs, refusal, sandboxId } from './given.ts';

// exec: `/bin/sh -c` as root with cwd, env, a timeout (up to 600 s, default 60) and output
// capped at 1 MiB per stream with `truncated`.

const { runtime, cleanup } = givenRuntime();
const id = sandboxId('exec');

beforeAll(async () => {
  await runtime.prepare();
  await runtime.create(id);
}, prepareTimeoutMs);
afterAll(cleanup);

describe('exec', () => {
  it('runs in /root with a small environment by default, and answers the exit code', async () => {
    const { result, timedOut } = await runtime.exec(id, 'pwd; env | sort; echo oops >&2; exit 3');
    expect(timedOut).toBe(false);
    expect(result).toEqual({
      exit_code: 3,
      stdout:
        '/root\nHOME=/root\nLANG=C.UTF-8\nLOGNAME=root\nPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nPWD=/root\nUSER=root\n',
      stderr: 'oops\n',
      truncated: false,
    });
  });

  it('takes cwd and env', async () => {
    const { result } = await runtime.exec(id, 'mkdir -p /srv/app && cd /srv/app && pwd', {});
    expect(result.stdout).toBe('/srv/app\n');
    const inApp = await runtime.exec(id, 'pwd; echo "$GREETING" "$HOME"', {
      cwd: '/srv/app',
      env: { GREETING: 'hello world', HOME: '/srv' },
    });
    expect(inApp.result).toMatchObject({ exit_code: 0, stdout: '/srv/app\nhello world /srv\n' });
  });

  it('fails like cd when the cwd does not exist', async () => {
    const { result } = await runtime.exec(id, 'pwd', { cwd: '/no/such/dir' });
    expect(result.exit_code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("can't cd to /no/such/dir");
  });

  it('kills the whole command tree at the timeout and answers 124', async () => {
    const started = Date.now();
    const { result, timedOut } = await runtime.exec(
      id,
      'echo started; (sleep 5; echo child-survived > /root/late) & sleep 5; echo finished',
      { timeoutSeconds: 1 },
    );
    // Before the command's own 5 s: killed at the timeout (a wide margin; these machines are shared).
    expect(Date.now() - started).toBeLessThan(4500);
    expect(timedOut).toBe(true);
    expect(result).toEqual({ exit_code: 124, stdout: 'started\n', stderr: '', truncated: false });
    const sleepers = await runtime.exec(id, 'ps -e -o comm= | grep -c sleep || true');
    expect(sleepers.result.stdout).toBe('0\n');
  });

  it('answers when the command exits, leaving its background processes running', async () => {
    const started = Date.now();
    const { result } = await runtime.exec(id, 'sleep 20 & echo $! > /root/background.pid; echo done');
    expect(Date.now() - started).toBeLessThan(15_000); // well before the background sleep's 20 s
    expect(result).toMatchObject({ exit_code: 0, stdout: 'done\n' });
    const alive = await runtime.exec(id, 'kill -0 "$(cat /root/background.pid)" && echo alive');
    expect(alive.result.stdout).toBe('alive\n');
  });

  it('caps each stream at 1 MiB and says truncated', async () => {
    const exact = await runtime.exec(id, `head -c ${execOutputLimitBytes} /dev/zero | tr '\\0' a`);
    expect(exact.result.stdout.length).toBe(execOutputLimitBytes);
    expect(exact.result.truncated).toBe(false);

    const over = await runtime.exec(
      id,
      `head -c ${3 * execOutputLimitBytes} /dev/zero | tr '\\0' b >&2; echo ok`,
    );
    expect(over.result).toMatchObject({ exit_code: 0, stdout: 'ok\n', truncated: true });
    expect(over.result.stderr.length).toBe(execOutputLimitBytes);
  });

  it('refuses a timeout beyond 600 s and an unknown sandbox', async () => {
    expect((await refusal(runtime.exec(id, 'true', { timeoutSeconds: 601 }))).param).toBe('timeout_seconds');
    expect((await refusal(runtime.exec(id, 'true', { env: { 'NOT-A-NAME': 'x' } }))).param).toBe('env');
    expect((await refusal(runtime.exec('no-such-sandbox', 'true'))).code).toBe('not_found');
  });
});

/** A streaming exec to its end: its exit code and each stream's text. */
async function streamed(
  command: string | string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
) {
  const out = { stdout: '', stderr: '' };
  const exec = await runtime.startExec(id, command, {
    ...options,
    onOutput: (stream, chunk) => {
      out[stream] += chunk.toString('utf8');
    },
  });
  return { exitCode: await exec.done, ...out };
}

describe('a streaming exec (runs)', () => {
  it('executes an argument vector with no shell: each word reaches the program as it is (issue 50)', async () => {
    const words = ["it's", 'a  b', '$HOME', '$(id)', '*', 'two\nlines', '', '; echo no', '-n'];
    expect(await streamed(['printf', '[%s]\n', ...words], { cwd: '/tmp' })).toEqual({
      exitCode: 0,
      stdout: words.map((word) => `[${word}]\n`).join(''),
      stderr: '',
    });
    // The same cd and environment as a string's, then the program itself.
    expect(
      await streamed(['sh', '-c', 'pwd; echo "$GREETING"'], { cwd: '/tmp', env: { GREETING: 'a b' } }),
    ).toMatchObject({
      exitCode: 0,
      stdout: '/tmp\na b\n',
    });
    // A string is still a shell command line.
    expect(await streamed('echo $HOME; echo one && echo two')).toMatchObject({ stdout: '/root\none\ntwo\n' });
    // A program not on PATH, or a shell builtin's name: 127, as a shell says it.
    const missing = await streamed(['no-such-program']);
    expect(missing.exitCode).toBe(127);
    expect(missing.stderr).toMatch(/no-such-program: not found/);
    expect((await streamed(['cd', '/'])).exitCode).toBe(127);
    // A cwd that does not exist fails as cd does, before the program runs.
    expect((await streamed(['true'], { cwd: '/no/such/dir' })).exitCode).toBe(2);
  });

  it('refuses a vector it cannot run: no program, or a NUL in a word', async () => {
    expect((await refusal(runtime.startExec(id, [], { onOutput: () => {} }))).param).toBe('command');
    expect((await refusal(runtime.startExec(id, ['', 'x'], { onOutput: () => {} }))).param).toBe('command');
    expect((await refusal(runtime.startExec(id, ['echo', 'a\u0000b'], { onOutput: () => {} }))).param).toBe(
      'command',
    );
  });

  it('killed as soon as it starts, before its shell joined the sandbox, ends with nothing left running', async () => {
    // A run stopped the moment it starts: the kill comes while the command's shell is still on
    // its way into the sandbox's cgroups. Several, since the moment varies.
    for (const seconds of [301, 302, 303, 304, 305]) {
      const exec = await runtime.startExec(id, `sleep ${seconds}`, { onOutput: () => {} });
      await exec.kill();
      const ended = await Promise.race([
        exec.done,
        new Promise<string>((resolve) => setTimeout(() => resolve('still running after 10 s'), 10_000)),
      ]);
      expect(ended).toBe(137); // 128 + SIGKILL
      const { result } = await runtime.exec(id, 'ps -e -o args=');
      expect(result.stdout).not.toContain(`sleep ${seconds}`);
    }
  }, 90_000);
});
