import packageJson from '../package.json' with { type: 'json' };
import type { Env } from './access.ts';
import { type CommandName, parseArguments } from './arguments.ts';
import { limits } from './commands/limits.ts';
import { login } from './commands/login.ts';
import { logout } from './commands/logout.ts';
import { whoami } from './commands/whoami.ts';
import type { Context } from './context.ts';
import { CredentialStore } from './credentials.ts';
import { ApiRefused, exitCodes, Failure } from './failures.ts';
import { Output, type TextSink } from './output.ts';
import { type ColourTarget, colourLevel, createPalette } from './palette.ts';
import { sleeper } from './sleep.ts';

// The tool from argv to exit code: parse, run one command, and turn a failure into its message on
// stderr and its exit code (0 done, 1 the API refused or the tool could not, 2 mistyped).

const commands: Record<CommandName, (context: Context, options: { json?: boolean }) => Promise<void>> = {
  login,
  logout,
  whoami,
  limits,
};

export interface Streams {
  stdout: TextSink & ColourTarget;
  stderr: TextSink;
}

export async function main(argv: readonly string[], env: Env, streams: Streams): Promise<number> {
  const output = new Output(streams, createPalette(colourLevel(env, streams.stdout)));
  const parsed = parseArguments(argv, {
    version: packageJson.version,
    writeOut: (text) => streams.stdout.write(text),
    writeErr: (text) => streams.stderr.write(text),
  });
  if (parsed.kind === 'exit') return parsed.code;
  const { invocation } = parsed;
  const context: Context = {
    env,
    store: new CredentialStore(),
    apiUrlFlag: invocation.apiUrl,
    userAgent: `orrery-cli/${packageJson.version} node/${process.versions.node}`,
    output,
    sleep: sleeper(env),
  };
  try {
    await commands[invocation.command](context, { json: invocation.json });
    return exitCodes.ok;
  } catch (error) {
    if (!(error instanceof Failure)) {
      output.error(
        `the tool failed unexpectedly: ${error instanceof Error ? (error.stack ?? error.message) : error}`,
      );
      return exitCodes.failed;
    }
    output.error(error.message);
    if (error instanceof ApiRefused && error.status === 401)
      output.say('Log in again with `orrery login`, or check ORRERY_API_KEY.');
    return error.exitCode;
  }
}

/** The process: its arguments, environment and streams; a closed stdout (`| head`) ends it quietly. */
export async function runProcess(): Promise<void> {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? exitCodes.ok);
    throw error;
  });
  process.exitCode = await main(process.argv.slice(2), process.env, {
    stdout: process.stdout,
    stderr: process.stderr,
  });
}
