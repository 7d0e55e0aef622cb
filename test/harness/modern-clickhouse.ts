import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// A current ClickHouse (26.x) for the tests: chDB, ClickHouse in-process from PyPI's chdb-core,
// served over ClickHouse's HTTP interface by test/harness/chdb-http.py, so the platform's own
// client talks to it as to any server. It runs on the project's Python, the virtualenv
// infra/bootstrap.mjs makes and fills before `npm test`.

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
const python = `${projectRoot}.venv/bin/python`;
const server = fileURLToPath(new URL('./chdb-http.py', import.meta.url));
const bootstrap = 'run `node infra/bootstrap.mjs` (npm test does it first)';

export interface ModernClickHouse {
  /** Where the platform's client reaches it: `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The engine's version, as `SELECT version()` says it. */
  readonly version: string;
  stop(): Promise<void>;
}

/** Starts the server; fails, never skips, when the project's Python or chdb-core is missing. */
export async function startModernClickHouse(timeoutMs = 60_000): Promise<ModernClickHouse> {
  if (!existsSync(python))
    throw new Error(`The project's Python virtualenv is missing (no ${python}): ${bootstrap}.`);
  const child = spawn(python, [server, '0'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, TZ: 'UTC' },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const listening = await new Promise<{ port: number; version: string }>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => fail(`no answer after ${timeoutMs} ms`), timeoutMs);
    function fail(why: string) {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`chDB's HTTP server (${server}) did not start: ${why}\n${stderr}`));
    }
    function onExit(code: number | null) {
      fail(
        code === 3
          ? `chdb-core is not installed in the project's virtualenv (.venv): ${bootstrap}`
          : `it exited with code ${code}`,
      );
    }
    child.once('exit', onExit);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /^listening (\d+) (\S+)$/m.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({ port: Number(match[1]), version: match[2]! });
    });
  });
  return {
    url: `http://127.0.0.1:${listening.port}`,
    version: listening.version,
    stop: () => stopChild(child),
  };
}

/** Closing its standard input ends it (it exits then); a kill only if it does not. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
