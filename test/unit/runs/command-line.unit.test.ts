import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  asShellLine,
  commandLength,
  type RunCommandLine,
  shellQuoted,
} from '../../../domain/runs/command-line.ts';
import { decide } from '../../../domain/runs/decide.ts';
import { placeRunBody } from '../../../domain/runs/requests.ts';
import { evolve, type Run, type RunState } from '../../../domain/runs/run.ts';
import { parseSandboxBody } from '../../../domain/sandboxes/parse.ts';
import { execLimits } from '../../../domain/sandboxes/requests.ts';
import { type RunRow, runFromRow, runToRow } from '../../../schemas/read-models/run-row.ts';

// A run's command (issue 50, item 5; domain/runs/command-line.ts): `POST /api/runs` takes an
// argument vector or a shell command line, refuses a bad one with a 422 naming the field, and
// the read model keeps each form as it was placed.

const parse = (command: unknown) => parseSandboxBody(placeRunBody, { command, ceiling_cents: 1 });

/** Words that a shell would otherwise read as syntax: quotes, spaces, `$`, globs, newlines. */
const awkward = [
  'printf',
  '%s|',
  'a b',
  "it's",
  '"quoted"',
  '$HOME',
  '$(id)',
  '`id`',
  '*.txt',
  '?',
  '[a-z]',
  'two\nlines',
  '',
  '  leading and trailing  ',
  '\\back\\slash',
  ';',
  '&&',
  '|',
  '>',
  '#not a comment',
  '~',
  '-n',
  'ünïcode ✓',
  '\t',
];

describe('the command of `POST /api/runs`', () => {
  it.each<[string, unknown]>([
    ['a shell command line', 'make && ./test'],
    ['an argument vector', ['python3', '-c', 'print("a b")']],
    ['one word in a vector', ['true']],
    ['words that are shell syntax, kept as they are', awkward],
  ])('takes %s as sent', (_, command) => {
    expect(parse(command)).toMatchObject({ ok: true, value: { command } });
  });

  it.each<[string, unknown, string, RegExp]>([
    ['an empty array', [], 'command', /at least one word/],
    ['a number in the array', ['echo', 1], 'command[1]', /each word of the command as a string/],
    ['null in the array', ['echo', 'a', null], 'command[2]', /as a string/],
    ['an object in the array', [{ program: 'ls' }], 'command[0]', /as a string/],
    ['an empty first word', ['', 'x'], 'command[0]', /the program to run as the first word/],
    ['a NUL in a word', ['echo', 'a\u0000b'], 'command[1]', /NUL/],
    ['an empty string', '', 'command', /1 to 65,536 characters/],
    ['a number', 5, 'command', /a string, or .* an array of strings/],
    ['an object', { argv: ['ls'] }, 'command', /a string, or .* an array of strings/],
    ['nothing', undefined, 'command', /^Missing `command`/],
  ])('refuses %s: 422 naming %s', (_, command, param, message) => {
    const parsed = parse(command);
    expect(parsed).toMatchObject({ ok: false, param });
    expect(parsed.ok === false && parsed.message).toMatch(message);
  });

  it('holds both forms to the exec command length, a vector counted joined by spaces', () => {
    const limit = execLimits.commandLength;
    const words = (count: number, each: number) => Array.from({ length: count }, () => 'x'.repeat(each));
    // 8,192 words of 7 characters and their 8,191 spaces: one under the limit.
    expect(commandLength(words(8192, 7))).toBe(limit - 1);
    expect(parse(words(8192, 7)).ok).toBe(true);
    expect(parse([...words(8192, 7), 'x'])).toMatchObject({ ok: false, param: 'command' });
    expect(parse('x'.repeat(limit)).ok).toBe(true);
    expect(parse('x'.repeat(limit + 1))).toMatchObject({ ok: false, param: 'command' });
  });
});

describe('a vector written as a shell command line', () => {
  it('reads back through /bin/sh to the same words, each one', () => {
    // printf repeats its format for each argument: each word ends in a NUL, which no word holds.
    const printed = execFileSync('/bin/sh', ['-c', `printf '%s\\0' ${shellQuoted(awkward.slice(1))}`], {
      encoding: 'utf8',
    });
    expect(printed.split('\u0000').slice(0, -1)).toEqual(awkward.slice(1));
  });

  it('leaves plain words as they are', () => {
    expect(shellQuoted(['python3', 'train.py', '--epochs=3', './out/a.txt'])).toBe(
      'python3 train.py --epochs=3 ./out/a.txt',
    );
    expect(shellQuoted(['sh', '-c', "echo 'hi'"])).toBe(`sh -c 'echo '\\''hi'\\'''`);
  });

  it('shows a shell command line as it is, and a vector quoted', () => {
    expect(asShellLine('make && ./test')).toBe('make && ./test');
    expect(asShellLine(['echo', 'a b'])).toBe("echo 'a b'");
  });
});

describe('the read model keeps the form placed', () => {
  /** A run as the decider places it, with this command. */
  const placed = (command: RunCommandLine): Run => {
    const events = decide(
      {
        type: 'PlaceRun',
        eventId: 'ev_1',
        runId: 'run_1',
        orgId: 'org_1',
        now: new Date('2026-12-01T00:00:00Z'),
        name: 'train',
        size: 'small',
        command,
        envNames: [],
        files: [],
        ceilingMicrodollars: 100,
        placedBy: { kind: 'key', keyId: 'key_1', personId: null },
        hasCredit: true,
        sizeAvailable: true,
        host: 'local',
        network: { egress: 'open', allow: [], deny: [] },
        template: null,
      },
      undefined,
    );
    const run = events.reduce(evolve, undefined as RunState);
    if (!run) throw new Error('PlaceRun left no run');
    return run;
  };
  /** A row as Postgres hands it back: JSON columns parsed. */
  const roundTrip = (placed: Run) => {
    const row = runToRow(placed, 1) as Record<string, unknown>;
    for (const column of ['env_names', 'files', 'placed_by']) row[column] = JSON.parse(row[column] as string);
    return { row, back: runFromRow(row as unknown as RunRow) };
  };

  it('a vector: in `command_argv`, and quoted in `command`', () => {
    const { row, back } = roundTrip(placed(['sh', '-c', 'echo hi']));
    expect(row).toMatchObject({ command: "sh -c 'echo hi'", command_argv: ['sh', '-c', 'echo hi'] });
    expect(back.command).toEqual(['sh', '-c', 'echo hi']);
  });

  it('a shell command line, as every row from before: `command_argv` null', () => {
    const { row, back } = roundTrip(placed('make && ./test'));
    expect(row).toMatchObject({ command: 'make && ./test', command_argv: null });
    expect(back.command).toBe('make && ./test');
  });
});
