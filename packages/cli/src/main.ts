import packageJson from '../package.json' with { type: 'json' };
import type { Env } from './access.ts';
import { type CommandName, type Invocation, parseArguments } from './arguments.ts';
import { catalog } from './commands/catalog.ts';
import { limits } from './commands/limits.ts';
import { login } from './commands/login.ts';
import { logout } from './commands/logout.ts';
import { logs } from './commands/logs.ts';
import { result } from './commands/result.ts';
import { run } from './commands/run.ts';
import { runs } from './commands/runs.ts';
import { stop } from './commands/stop.ts';
import { template } from './commands/template.ts';
import { whoami } from './commands/whoami.ts';
import type { Context } from './context.ts';
import { CredentialStore } from './credentials.ts';
import { ApiRefused, exitCodes, Failure } from './failures.ts';
import { Output, type TextSink } from './output.ts';
import { type ColourTarget, colourLevel, createPalette } from './palette.ts';
import { sleeper } from './sleep.ts';

// The tool from argv to exit code: parse, run one command, and turn a failure into its message on
// stderr and its exit code (0 done, 1 the API refused or the tool could not, 2 mistyped; `run` and
// `logs -f` the run's own, failures.ts).

type Handler<K extends CommandName> = (
  context: Context,
  invocation: Extract<Invocation, { command: K }>,
) => Promise<unknown>;

/** Each command; a number it answers is the exit code (nothing: 0). */
const commands: { [K in CommandName]: Handler<K> } = {
  login,
  logout,
  whoami,
  limits,
  run,
  logs,
  runs,
  stop,
  result,
  catalog,
  template,
};

/** Ctrl-C, handled while a handler is given (`run` attached), else the default: the tool ends. */
export type Interrupts = (handler: () => void) => () => void;

const processInterrupts: Interrupts = (handler) => {
  process.on('SIGINT', handler);
  return () => process.off('SIGINT', handler);
};

export interface Streams {
  stdout: TextSink & ColourTarget;
  stderr: TextSink;
}

export async function main(
  argv: readonly string[],
  env: Env,
  streams: Streams,
  interrupts: Interrupts = processInterrupts,
): Promise<number> {
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
    onInterrupt: interrupts,
  };
  try {
    const handler = commands[invocation.command] as Handler<CommandName>;
    const code = await handler(context, invocation);
    return typeof code === 'number' ? code : exitCodes.ok;
  } catch (error) {
    if (!(error instanceof Failure)) {
      output.error(
        `the tool failed unexpectedly: ${error instanceof Error ? (error.stack ?? error.message) : error}`,
      );
      return exitCodes.failed;
    }
    output.error(
      error instanceof ApiRefused && error.param ? `${error.message} (${error.param})` : error.message,
    );
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
