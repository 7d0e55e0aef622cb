import { Argument, Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { apiUrlOf } from './access.ts';
import { type Check, parseCheck } from './checks.ts';
import { exitCodes } from './failures.ts';
import { type Path, parsePath } from './paths.ts';

// The command line, read by commander into one Invocation; nothing here talks to the API. A
// mistyped command, flag or flag value is exit 2 with commander's message, which names it and
// suggests the nearest spelling (spec 002: "a mistyped command; the message names the flag").
//
// `run` reads its command as the words after its own flags (commander's pass-through options, as
// `docker run` does): `orrery run --ceiling 5 python train.py --epochs 3` runs
// `python train.py --epochs 3`. That needs positional options, so the global `--api-url` is
// declared on every command as well, and may still come after the command's name. How the words
// become the run's command is `runCommandOf`'s rule.

export const commandNames = [
  'login',
  'logout',
  'whoami',
  'limits',
  'run',
  'logs',
  'runs',
  'stop',
  'result',
  'catalog',
  'template',
] as const;
export type CommandName = (typeof commandNames)[number];

/** `--env NAME=value`, or `--env NAME` for the value the tool's own environment has. */
export interface EnvFlag {
  name: string;
  value: string | undefined;
}

/** `--network`, `--allow`, `--deny`: the run's network policy; undefined when none of them is given. */
export interface NetworkFlags {
  egress: 'open' | 'none' | undefined;
  allow: string[];
  deny: string[];
}

export const egressChoices = ['open', 'none'] as const;

/**
 * The run's command from the words given for it (issue 50): two or more words are the program
 * and its arguments, sent as an argument vector and run with no shell, each word exactly as the
 * tool received it (as `docker run` and `kubectl exec` pass theirs); exactly one word is a shell
 * command line, run by `/bin/sh -c`, so `orrery run 'make && ./test'` keeps working. A single
 * word without shell syntax (`orrery run ls`) runs the same either way. The words are never
 * joined into one string and read again, as ssh does: that loses what quoting the caller did.
 */
export function runCommandOf(words: readonly string[]): string | string[] {
  return words.length === 1 ? words[0]! : [...words];
}

export interface RunFlags {
  /** A shell command line (one word given), or the program and its arguments (more): `runCommandOf`. */
  command: string | string[];
  ceilingCents: number;
  size: string | undefined;
  env: EnvFlag[];
  /** Local paths, sent as working files. */
  files: string[];
  name: string | undefined;
  network: NetworkFlags | undefined;
  /** A ready template's name or id: the run's sandbox starts from its files. */
  template: string | undefined;
  detach: boolean;
  checks: Check[];
}

/** `orrery template list | create | delete`. */
export type TemplateAction =
  | { action: 'list' }
  | { action: 'create'; name: string; packages: string[]; run: string[]; detach: boolean }
  | { action: 'delete'; name: string };

export const templateActions = ['list', 'create', 'delete'] as const;

interface Common {
  json: boolean;
  /** --api-url, checked; undefined when not given. */
  apiUrl: string | undefined;
}

export type Invocation = Common &
  (
    | { command: 'login' | 'logout' | 'whoami' | 'limits' | 'catalog' }
    | { command: 'run'; run: RunFlags }
    | { command: 'logs'; name: string; follow: boolean }
    | { command: 'runs'; status: 'active' | 'all'; limit: number | undefined }
    | { command: 'stop'; name: string }
    | { command: 'result'; name: string; path: Path | undefined }
    | ({ command: 'template' } & TemplateAction)
  );

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
  run: {
    summary: "run a command on hardware from the catalog: its output here, its exit code the tool's",
    json: 'print the run as it ended (with --detach: as placed) as the API sent it, with `checks` if any',
  },
  logs: {
    summary: "a run's output: its stdout on stdout, its stderr on stderr",
    json: 'print the output as the API sent it: NDJSON lines with sequence numbers, then the end line',
  },
  runs: { summary: 'runs, newest first, one a line, name first', json: 'print the answer of GET /api/runs' },
  stop: {
    summary: 'stop a run (exit 0 also when it had already ended)',
    json: 'print the run as it stopped, as the API sent it',
  },
  result: {
    summary: 'the JSON object a run wrote to $ORRERY_RESULT_PATH, or the value at a dotted path in it',
    json: 'print the answer of GET /api/runs/:name/result',
  },
  catalog: {
    summary: 'the hardware a run may use, with prices and availability',
    json: 'print the answer of GET /api/catalog',
  },
  template: {
    summary: 'what sandboxes and runs start from: list, create (from a recipe) and delete templates',
  },
};

const templateDescriptions: Record<(typeof templateActions)[number], { summary: string; json: string }> = {
  list: {
    summary: 'templates, newest first, one a line, name first',
    json: 'print the answer of GET /api/templates',
  },
  create: {
    summary: 'build a template from Debian packages and commands, and wait until it is built',
    json: 'print the template as it ended (with --detach: as accepted) as the API sent it',
  },
  delete: {
    summary: 'delete a template nothing stands on',
    json: 'print the template as deleted, as the API sent it',
  },
};

/** Turns a checking function's refusal into commander's, which names the flag or argument. */
function checked<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return parse(text);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };
}

const parseApiUrl = checked((text) => apiUrlOf(text, '--api-url'));

const parseCents = checked((text) => {
  if (!/^\d+(?:\.\d+)?$/.test(text) || Number(text) <= 0)
    throw new Error('write the ceiling in cents, a number above 0 such as 5 or 0.05');
  return Number(text);
});

const parseLimit = checked((text) => {
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 200)
    throw new Error('write a whole number from 1 to 200');
  return Number(text);
});

const collect =
  <T>(parse: (text: string) => T) =>
  (text: string, previous: T[] | undefined): T[] => [...(previous ?? []), parse(text)];

const parseEnv = checked((text): EnvFlag => {
  const equals = text.indexOf('=');
  const name = equals < 0 ? text : text.slice(0, equals);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new Error(
      `write NAME=value (or NAME, to send the value it has here); '${name}' is not a variable's name`,
    );
  return { name, value: equals < 0 ? undefined : text.slice(equals + 1) };
});

const parseFile = checked((text) => {
  if (text === '') throw new Error('write the path of a file to send');
  return text;
});

/** A CIDR or a host name; the API judges which (and answers 422 naming the entry). */
const parseRule = checked((text) => {
  if (text.trim() === '')
    throw new Error('write a CIDR (203.0.113.0/24), an address or a host name (example.com)');
  return text.trim();
});

const parseCheckFlag = checked((text) => {
  const parsed = parseCheck(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.check;
});

const parsePathArgument = checked((text) => {
  const parsed = parsePath(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.path;
});

interface RunOptions {
  ceiling?: number;
  size?: string;
  env?: EnvFlag[];
  file?: string[];
  name?: string;
  network?: 'open' | 'none';
  allow?: string[];
  deny?: string[];
  template?: string;
  detach?: boolean;
  check?: Check[];
}

/** A Debian package name or a command; the API judges them (and answers 422 naming the entry). */
const parseWord = (what: string) =>
  checked((text) => {
    if (text.trim() === '') throw new Error(`write ${what}`);
    return text;
  });

function networkFlags(options: RunOptions): NetworkFlags | undefined {
  const { network, allow = [], deny = [] } = options;
  if (network === undefined && allow.length === 0 && deny.length === 0) return undefined;
  return { egress: network, allow, deny };
}

function declare(program: Command, name: CommandName, set: (invocation: Invocation) => void): void {
  const { summary, json } = descriptions[name];
  const command = program.command(name).description(summary);
  command.option('--api-url <url>', 'the API (as before the command)', parseApiUrl);
  if (json) command.option('--json', json);
  const common = (options: { json?: boolean; apiUrl?: string }, self: Command): Common => ({
    json: options.json === true,
    apiUrl: options.apiUrl ?? self.parent?.opts<{ apiUrl?: string }>().apiUrl,
  });
  switch (name) {
    case 'login':
    case 'logout':
    case 'whoami':
    case 'limits':
    case 'catalog':
      command.action((options, self: Command) => set({ ...common(options, self), command: name }));
      return;
    case 'run':
      command
        .argument(
          '<command...>',
          "the program and its arguments, run as given with no shell; one word alone is a shell command line, run by /bin/sh -c ('make && ./test')",
        )
        .option('--ceiling <cents>', 'the most the run may cost, in cents (it is stopped there)', parseCents)
        .option('--size <size>', 'a size from `orrery catalog` (default: the API’s, small)')
        .option(
          '--env <NAME=value>',
          'a variable for the run (repeatable); NAME alone sends its value here',
          collect(parseEnv),
        )
        .option('--file <path>', 'a local file sent as a working file (repeatable)', collect(parseFile))
        .option('--name <name>', 'the run’s name (default: one the API makes, run-…)')
        .addOption(
          new Option(
            '--network <egress>',
            'open: the internet, never the host, private networks or other sandboxes (default); none: loopback only',
          ).choices(egressChoices),
        )
        .option(
          '--allow <rule>',
          'only this CIDR or host name is reachable, with the others given (repeatable)',
          collect(parseRule),
        )
        .option('--deny <rule>', 'never reach this CIDR or host name (repeatable)', collect(parseRule))
        .option(
          '--template <name>',
          'start the run’s sandbox from this ready template (`orrery template list`)',
        )
        .option('--detach', 'print the run’s name once placed, and return')
        .option(
          '--check <expression>',
          "judge the result, as in 'metrics.accuracy >= 0.9' (repeatable)",
          collect(parseCheckFlag),
        )
        .passThroughOptions()
        .action((words: string[], options: RunOptions & Common, self: Command) => {
          // Required, but checked here rather than by commander, which would report it before a
          // mistyped flag (`--ceilng`) that is the real mistake.
          if (options.ceiling === undefined)
            self.error(
              "error: required option '--ceiling <cents>' not specified: how many cents the run may cost",
              {
                exitCode: exitCodes.usage,
                code: 'commander.missingMandatoryOptionValue',
              },
            );
          set({
            ...common(options, self),
            command: 'run',
            run: {
              command: runCommandOf(words),
              ceilingCents: options.ceiling,
              size: options.size,
              env: options.env ?? [],
              files: options.file ?? [],
              name: options.name,
              network: networkFlags(options),
              template: options.template,
              detach: options.detach === true,
              checks: options.check ?? [],
            },
          });
        });
      return;
    case 'logs':
      command
        .argument('<name>', 'the run’s name or id')
        .option('-f, --follow', 'follow the output until the run ends, and exit with its exit code')
        .action((run: string, options: { follow?: boolean } & Common, self: Command) =>
          set({ ...common(options, self), command: 'logs', name: run, follow: options.follow === true }),
        );
      return;
    case 'runs':
      command
        .addOption(
          new Option('--status <status>', 'active: the runs holding hardware')
            .choices(['active', 'all'])
            .default('all'),
        )
        .option('--limit <count>', 'how many, newest first (1 to 200; default 50)', parseLimit)
        .action((options: { status: 'active' | 'all'; limit?: number } & Common, self: Command) =>
          set({ ...common(options, self), command: 'runs', status: options.status, limit: options.limit }),
        );
      return;
    case 'stop':
      command
        .argument('<name>', 'the run’s name or id')
        .action((run: string, options: Common, self: Command) =>
          set({ ...common(options, self), command: 'stop', name: run }),
        );
      return;
    case 'result':
      command
        .argument('<name>', 'the run’s name or id')
        .addArgument(
          new Argument('[path]', 'a dotted path in the result, as in metrics.accuracy').argParser(
            parsePathArgument,
          ),
        )
        .action((run: string, path: Path | undefined, options: Common, self: Command) =>
          set({ ...common(options, self), command: 'result', name: run, path }),
        );
      return;
    case 'template':
      declareTemplate(command, set);
      return;
    default: {
      const never: never = name;
      throw new Error(`no declaration for ${never}`);
    }
  }
}

/** `orrery template <action>`: each action its own flags, `--json` and `--api-url` among them. */
function declareTemplate(parent: Command, set: (invocation: Invocation) => void): void {
  const action = (name: (typeof templateActions)[number]) => {
    const { summary, json } = templateDescriptions[name];
    return parent
      .command(name)
      .description(summary)
      .option('--api-url <url>', 'the API (as before the command)', parseApiUrl)
      .option('--json', json);
  };
  const common = (options: { json?: boolean; apiUrl?: string }, self: Command): Common => ({
    json: options.json === true,
    apiUrl:
      options.apiUrl ??
      self.parent?.opts<{ apiUrl?: string }>().apiUrl ??
      self.parent?.parent?.opts<{ apiUrl?: string }>().apiUrl,
  });
  action('list').action((options: Common, self: Command) =>
    set({ ...common(options, self), command: 'template', action: 'list' }),
  );
  action('create')
    .requiredOption('--name <name>', 'its name: lowercase letters, digits and dashes, unique in the org')
    .option(
      '--package <name>',
      'a Debian package to install with apt (repeatable)',
      collect(parseWord('a Debian package name, such as jq')),
    )
    .option(
      '--run <command>',
      'a command run as root after the packages, like a RUN line (repeatable, in order)',
      collect(parseWord('a shell command')),
    )
    .option('--detach', 'print the name once accepted, and return while it builds')
    .action(
      (
        options: { name: string; package?: string[]; run?: string[]; detach?: boolean } & Common,
        self: Command,
      ) =>
        set({
          ...common(options, self),
          command: 'template',
          action: 'create',
          name: options.name,
          packages: options.package ?? [],
          run: options.run ?? [],
          detach: options.detach === true,
        }),
    );
  action('delete')
    .argument('<name>', 'the template’s name or id')
    .action((name: string, options: Common, self: Command) =>
      set({ ...common(options, self), command: 'template', action: 'delete', name }),
    );
}

export function parseArguments(argv: readonly string[], io: ParserOutput & { version: string }): Parsed {
  let invocation: Invocation | undefined;
  const program = new Command('orrery')
    .description('Orrery on the command line: log in, run commands on hardware, follow and judge them.')
    .version(io.version, '-V, --version', 'print the version')
    .option(
      '--api-url <url>',
      'the API (default: ORRERY_API_URL, else the logged-in API, else http://127.0.0.1:8080)',
      parseApiUrl,
    )
    .configureOutput({ writeOut: io.writeOut, writeErr: io.writeErr })
    .showSuggestionAfterError(true)
    .showHelpAfterError('(orrery --help lists the commands and flags)')
    .enablePositionalOptions()
    .exitOverride();
  for (const name of commandNames)
    declare(program, name, (value) => {
      invocation = value;
    });
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
