import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { apiUrlOf } from './access.ts';
import { exitCodes } from './failures.ts';

// The command line, read by commander into one Invocation; nothing here talks to the API. A
// mistyped command, flag or flag value is exit 2 with commander's message, which names it and
// suggests the nearest spelling (spec 002: "a mistyped command; the message names the flag").
// Only the commands that work are declared, so `orrery run` is an unknown command until runs exist.

export const commandNames = ['login', 'logout', 'whoami', 'limits'] as const;
export type CommandName = (typeof commandNames)[number];

export interface Invocation {
  command: CommandName;
  json: boolean;
  /** --api-url, checked; undefined when not given. */
  apiUrl: string | undefined;
}

/** A command to run, or the exit code of what the parser already did (help, version, a mistake). */
export type Parsed = { kind: 'run'; invocation: Invocation } | { kind: 'exit'; code: number };

export interface ParserOutput {
  writeOut(text: string): void;
  writeErr(text: string): void;
}

const descriptions: Record<CommandName, { summary: string; json?: string }> = {
  login: {
    summary: 'log in with the dashboard (a code to approve) and store the key it gives',
    json: 'print the org and the key id as JSON (never the key)',
  },
  logout: { summary: 'forget the stored key' },
  whoami: { summary: 'the key in use, its org and who made it', json: 'print the answer of GET /api/me' },
  limits: {
    summary: "the org's balance and charges",
    json: 'print the answer of GET /api/billing/summary',
  },
};

function parseApiUrl(text: string): string {
  try {
    return apiUrlOf(text, '--api-url');
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

export function parseArguments(argv: readonly string[], io: ParserOutput & { version: string }): Parsed {
  let invocation: Invocation | undefined;
  const program = new Command('orrery')
    .description('Orrery on the command line: log in, see who you are and what you may spend.')
    .version(io.version, '-V, --version', 'print the version')
    .option(
      '--api-url <url>',
      'the API (default: ORRERY_API_URL, else the logged-in API, else http://127.0.0.1:8080)',
      parseApiUrl,
    )
    .configureOutput({ writeOut: io.writeOut, writeErr: io.writeErr })
    .showSuggestionAfterError(true)
    .showHelpAfterError('(orrery --help lists the commands and flags)')
    .exitOverride();
  for (const name of commandNames) {
    const { summary, json } = descriptions[name];
    const command = program.command(name).description(summary);
    if (json) command.option('--json', json);
    command.action((options: { json?: boolean }, self: Command) => {
      const globals = self.optsWithGlobals<{ apiUrl?: string }>();
      invocation = { command: name, json: options.json === true, apiUrl: globals.apiUrl };
    });
  }
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // Help or the version asked for is a success (`orrery help` too, which commander exits 0);
    // help shown because no command was given, and every mistake, is a usage error.
    const asked =
      error.code === 'commander.helpDisplayed' ||
      error.code === 'commander.version' ||
      (error.code === 'commander.help' && error.exitCode === 0);
    return { kind: 'exit', code: asked ? exitCodes.ok : exitCodes.usage };
  }
  if (!invocation) return { kind: 'exit', code: exitCodes.usage };
  return { kind: 'run', invocation };
}
