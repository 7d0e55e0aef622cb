import { describe, expect, it } from 'vitest';
import { type Invocation, parseArguments, runCommandOf } from '../src/arguments.ts';

// How `orrery run` reads its command (issue 50, item 5): two or more words are the program and
// its arguments, sent as they were received; one word is a shell command line. The words are
// never joined and read again.

const silent = { version: '0', writeOut: () => {}, writeErr: () => {} };

function commandOf(argv: string[]): Extract<Invocation, { command: 'run' }>['run']['command'] {
  const parsed = parseArguments(argv, silent);
  if (parsed.kind !== 'run' || parsed.invocation.command !== 'run') throw new Error(`not a run: ${argv}`);
  return parsed.invocation.run.command;
}

describe('runCommandOf', () => {
  it('one word is a shell command line; two or more are an argument vector', () => {
    expect(runCommandOf(['make && ./test'])).toBe('make && ./test');
    expect(runCommandOf(['ls'])).toBe('ls');
    expect(runCommandOf(['sh', '-c', 'echo hi'])).toEqual(['sh', '-c', 'echo hi']);
  });
});

describe('orrery run <command…>', () => {
  it.each<[string, string[], string | string[]]>([
    ['after `--`, a vector, each word as given', ['--', 'sh', '-c', 'echo hi'], ['sh', '-c', 'echo hi']],
    ['without `--`, the same', ['python3', '-c', 'print("a b")'], ['python3', '-c', 'print("a b")']],
    ['one word after `--`: a shell command line', ['--', 'make && ./test'], 'make && ./test'],
    ['one word without `--`: the same', ['echo $HOME; ls *.txt'], 'echo $HOME; ls *.txt'],
    [
      'quotes, spaces, `$`, globs and newlines, untouched',
      ['--', 'printf', '%s\n', "it's", 'a b', '$HOME', '*', 'two\nlines', ''],
      ['printf', '%s\n', "it's", 'a b', '$HOME', '*', 'two\nlines', ''],
    ],
    [
      'flags after the program are the program’s',
      ['echo', 'one', '--json', '-n', '--ceiling', '3'],
      ['echo', 'one', '--json', '-n', '--ceiling', '3'],
    ],
    ['a second `--` is a word of the command', ['--', 'ls', '--', '-x'], ['ls', '--', '-x']],
    ['an empty word alone is a shell command line the API refuses', ['--', ''], ''],
  ])('%s', (_, words, command) => {
    expect(commandOf(['run', '--ceiling', '1', ...words])).toEqual(command);
  });

  it('a command is required: exit 2', () => {
    expect(parseArguments(['run', '--ceiling', '1', '--'], silent)).toEqual({ kind: 'exit', code: 2 });
    expect(parseArguments(['run', '--ceiling', '1'], silent)).toEqual({ kind: 'exit', code: 2 });
  });
});
