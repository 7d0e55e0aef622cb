import { z } from 'zod';
import { execLimits } from '../sandboxes/requests.ts';
import { textWithoutNul } from '../text.ts';

// What a run executes (issue 50, item 5), in one of two forms, as a Dockerfile's CMD takes it:
// - an argument vector (`["python3", "-c", "print(\"a b\")"]`): the program and its arguments,
//   executed as they are with no shell in between, so each word reaches the program exactly as
//   sent (quotes, spaces, `$`, globs and newlines included), as `docker run` and `kubectl exec`
//   pass theirs; the program is looked up on PATH, never a shell builtin;
// - a string (`"make && ./test"`): a shell command line, read by `/bin/sh -c`, for pipes,
//   redirections and `&&`. Every run placed before arrays were taken is one of these.
// Both forms are held to one length, that of the sandbox's exec command (65,536 characters):
// a vector counts its words as if joined by single spaces.

/** A shell command line (a string), or an argument vector run with no shell (an array). */
export type RunCommandLine = string | string[];

export function isArgumentVector(command: RunCommandLine): command is string[] {
  return Array.isArray(command);
}

/** The characters of a vector's words joined by single spaces: the length both forms are held to. */
export function commandLength(command: RunCommandLine): number {
  if (!isArgumentVector(command)) return command.length;
  return command.reduce((sum, word) => sum + word.length, 0) + Math.max(0, command.length - 1);
}

const lengthRule = `at most ${execLimits.commandLength.toLocaleString('en-US')} characters`;

const shellCommand = textWithoutNul('send a shell command as a string, or an array of words')
  .min(1, `send a shell command of 1 to ${execLimits.commandLength.toLocaleString('en-US')} characters`)
  .max(
    execLimits.commandLength,
    `send a shell command of 1 to ${execLimits.commandLength.toLocaleString('en-US')} characters`,
  );

const argumentVector = z
  .array(textWithoutNul('send each word of the command as a string'))
  .min(1, 'send the program to run and its arguments: an array of at least one word')
  .superRefine((words, ctx) => {
    if (words[0] === '')
      ctx.addIssue({ code: 'custom', path: [0], message: 'send the program to run as the first word' });
    if (commandLength(words) > execLimits.commandLength)
      ctx.addIssue({
        code: 'custom',
        message: `send ${lengthRule} with the words joined by spaces`,
      });
  });

/**
 * The `command` of `POST /api/runs`: the union is refused at `command` when the value is neither
 * a string nor an array, and at the word at fault when it is an array (domain/params.ts names the
 * option the value was meant for).
 */
export const runCommandLine = z
  .union([shellCommand, argumentVector], {
    error: 'send a shell command as a string, or the program and its arguments as an array of strings',
  })
  .describe(
    'a string is a shell command line, run by `/bin/sh -c` (`make && ./test`); an array is the program and its arguments, run as given with no shell (`["python3", "-c", "print(1)"]`)',
  );

/** Words a POSIX shell reads back as themselves unquoted. */
const plainWord = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * An argument vector written as a shell command line that `/bin/sh -c` reads back to the same
 * words: each word in single quotes unless it needs none, a `'` in one as `'\''`. It is how a
 * vector is shown where one string is wanted, and what the run's event keeps in its string
 * field, so a reader from before vectors (which runs that field with `/bin/sh -c`) runs the same.
 */
export function shellQuoted(words: readonly string[]): string {
  return words.map((word) => (plainWord.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`)).join(' ');
}

/** Either form as one shell command line: a string as it is, a vector quoted (`shellQuoted`). */
export function asShellLine(command: RunCommandLine): string {
  return isArgumentVector(command) ? shellQuoted(command) : command;
}
