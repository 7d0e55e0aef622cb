import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64, givenRunApi, ndjson, prepareTimeoutMs, type RunAnswer, type RunApi } from './given.ts';

// A run's command as an argument vector or a shell command line (issue 50, item 5), on real
// sandboxes: a vector's words reach the program exactly as sent (quotes, spaces, `$`, globs,
// newlines), with no shell reading them; a string is read by `/bin/sh -c` as before. The run
// answers its command in the form it was placed.

let api: RunApi;
beforeAll(async () => {
  api = await givenRunApi();
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

/** Places a run, waits for its end, and answers it with its stdout and stderr. */
async function ran(
  body: Record<string, unknown>,
): Promise<{ run: RunAnswer; stdout: string; stderr: string }> {
  const placed = await api.place({ ceiling_cents: 1, ...body });
  const run = await api.ended(placed.id);
  const lines = ndjson((await api.call('GET', `/api/runs/${placed.id}/output`)).body).slice(0, -1);
  const text = (stream: string) =>
    lines
      .filter((line) => line.stream === stream)
      .map((line) => line.text)
      .join('');
  return { run, stdout: text('stdout'), stderr: text('stderr') };
}

/** Words a shell would read as syntax; each must reach the program as it is. */
const awkward = [
  'a b',
  '  two  spaces  ',
  "it's",
  '"double"',
  '$HOME',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell's parameter expansion, sent as it is.
  '${PATH}',
  '$(echo injected)',
  '`echo injected`',
  '*',
  '*.txt',
  '?',
  '[ab].txt',
  'two\nlines',
  'tab\there',
  '',
  ';',
  '&& echo injected',
  '| cat',
  '> out.txt',
  '#not a comment',
  '~',
  '\\back\\slash',
  'ünïcode ✓',
];

describe('an argument vector', () => {
  it('reaches the program word for word: quotes, spaces, `$`, globs and newlines unchanged', async () => {
    // Each word between ⟨ and ⟩: printf repeats its format for each argument.
    const { run, stdout, stderr } = await ran({
      command: ['printf', '⟨%s⟩', ...awkward],
      files: [
        { path: 'a.txt', contents_base64: base64('a') },
        { path: 'b.txt', contents_base64: base64('b') },
      ],
    });
    expect(run).toMatchObject({ status: 'succeeded', exit_code: 0 });
    expect(stderr).toBe('');
    expect(stdout).toBe(awkward.map((word) => `⟨${word}⟩`).join(''));
    // No shell ran it: nothing was written by the `>` word.
    expect(stdout).not.toContain('injected\n');
  });

  it('runs `sh -c` with its script as one word, and `python3 -c` with its quotes', async () => {
    const shell = await ran({ command: ['sh', '-c', 'echo hi; echo "$0 $1"', 'zero', 'one two'] });
    expect(shell.stdout).toBe('hi\nzero one two\n');
    const python = await ran({ command: ['python3', '-c', 'print("a b")'] });
    expect(python).toMatchObject({ stdout: 'a b\n', run: { exit_code: 0 } });
  });

  it('starts in the working directory with the environment, as a string does', async () => {
    const { stdout } = await ran({
      command: [
        'sh',
        '-c',
        'pwd; cat greeting.txt; printf "%s\\n" "$WHO"; test -n "$ORRERY_RESULT_PATH" && echo result-path',
      ],
      files: [{ path: 'greeting.txt', contents_base64: base64('hello\n') }],
      env: { WHO: 'the caller' },
    });
    expect(stdout).toBe('/root/work\nhello\nthe caller\nresult-path\n');
  });

  it('looks the program up on PATH, never as a shell builtin: a missing one is 127, not found', async () => {
    const missing = await ran({ command: ['no-such-program', 'x'] });
    expect(missing.run).toMatchObject({ status: 'failed', exit_code: 127 });
    expect(missing.stderr).toMatch(/no-such-program: not found/);
    // `cd` is a builtin only: as a program it is not there.
    expect((await ran({ command: ['cd', '/'] })).run.exit_code).toBe(127);
    // A first word that looks like an option is a program's name too.
    expect((await ran({ command: ['-x'] })).run.exit_code).toBe(127);
  });

  it('is answered as placed, an array, by the placing, the read and the list', async () => {
    const command = ['sh', '-c', "echo 'quoted'"];
    const placed = await api.place({ command, ceiling_cents: 1 });
    expect(placed.command).toEqual(command);
    expect((await api.call('GET', `/api/runs/${placed.id}`)).json().data.command).toEqual(command);
    const listed = (await api.call('GET', '/api/runs?limit=1')).json().data as RunAnswer[];
    expect(listed[0]).toMatchObject({ id: placed.id, command });
    expect((await api.ended(placed.id)).command).toEqual(command);
  });
});

describe('a shell command line', () => {
  it('is read by /bin/sh -c: `$` expands, globs match, `&&` chains', async () => {
    const { run, stdout } = await ran({
      command: 'echo $HOME; echo *.txt && printf "%s|" "a b"',
      files: [
        { path: 'a.txt', contents_base64: base64('a') },
        { path: 'b.txt', contents_base64: base64('b') },
      ],
    });
    expect(run).toMatchObject({
      status: 'succeeded',
      command: 'echo $HOME; echo *.txt && printf "%s|" "a b"',
    });
    expect(stdout).toBe('/root\na.txt b.txt\na b|');
  });

  it('the same words as a vector are not: each is passed as it is', async () => {
    const { stdout } = await ran({
      command: ['echo', '$HOME', '*.txt', '&&', 'true'],
      files: [{ path: 'a.txt', contents_base64: base64('a') }],
    });
    expect(stdout).toBe('$HOME *.txt && true\n');
  });
});
