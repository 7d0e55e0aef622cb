import type { SandboxRuntime } from '../runtime.ts';

// Running the desktop's programs inside a sandbox: through the runtime's exec (as root inside,
// `/bin/sh -c`), with the desktop's display in the environment. Arguments are single-quoted, so
// no text a caller sends (a URL, typed text, a key name) is read by the shell.

/** The X display every sandbox's desktop uses: each sandbox has its own /tmp and network. */
export const display = ':1';

/** Files of the desktop inside the sandbox: its state, process list, logs, browser profile. */
export const desktopDir = '/run/orrery-desktop';

export const desktopEnv = { DISPLAY: display, HOME: '/root' };

export function quote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** One shell command line of `argv`, each word quoted. */
export function shellWords(argv: readonly (string | number)[]): string {
  return argv.map((word) => quote(String(word))).join(' ');
}

export interface ShellResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs `script` inside the sandbox with the desktop's environment and answers its output. */
export async function runShell(
  runtime: SandboxRuntime,
  sandboxId: string,
  script: string,
  timeoutSeconds = 30,
): Promise<ShellResult> {
  const { result } = await runtime.exec(sandboxId, script, {
    env: desktopEnv,
    cwd: '/root',
    timeoutSeconds: Math.min(600, Math.ceil(timeoutSeconds)),
  });
  return { exitCode: result.exit_code, stdout: result.stdout, stderr: result.stderr };
}

/** Like `runShell`, and fails unless the script exits 0. */
export async function runShellOk(
  runtime: SandboxRuntime,
  sandboxId: string,
  script: string,
  timeoutSeconds = 30,
): Promise<string> {
  const result = await runShell(runtime, sandboxId, script, timeoutSeconds);
  if (result.exitCode !== 0) throw new ShellFailed(result);
  return result.stdout;
}

export class ShellFailed extends Error {
  constructor(readonly result: ShellResult) {
    super(
      `exit ${result.exitCode}: ${(result.stderr.trim() || result.stdout.trim()).split('\n').slice(-5).join('\n')}`,
    );
    this.name = 'ShellFailed';
  }
}
