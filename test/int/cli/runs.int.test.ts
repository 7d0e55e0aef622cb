import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../harness/platform.ts';
import { asPerson, signUp } from '../people/given.ts';
import { prepareTimeoutMs, type RunAnswer, type RunApi } from '../runs/given.ts';
import {
  hasEscapes,
  newHome,
  runCli,
  runCliInTerminal,
  runCliInTmux,
  startCli,
  startRunCliPlatform,
  unknownField,
} from './given.ts';

// The tool with runs, row by row of spec 002's two tables ("Command-line tool behaviour in
// scripts" and "`--json` output"): the real binary in a child process, a key from ORRERY_API_KEY
// and no login, against the run API on real sandboxes of this host. Terminal behaviour (colour,
// Ctrl-C) in real pseudo-terminals: util-linux `script` and tmux.

let api: RunApi;
let url: string;
let losePlacingAnswer: (name: string) => void;
let home: Awaited<ReturnType<typeof newHome>>;
beforeAll(async () => {
  ({ api, url, losePlacingAnswer } = await startRunCliPlatform());
  home = await newHome();
}, prepareTimeoutMs);
afterAll(async () => {
  await home.remove();
  await api?.cleanup();
});

const env = (extra: Record<string, string | undefined> = {}) => ({
  home: home.home,
  url,
  extra: { ORRERY_API_KEY: api.key, ...extra },
});
const orrery = (args: string[], extra?: Record<string, string | undefined>) => runCli(args, env(extra));
const json = (text: string) => JSON.parse(text) as Record<string, unknown> & { data: RunAnswer };
const unique = (label: string) => `${label}-${Date.now().toString(36)}`;
const status = async (id: string) =>
  ((await api.call('GET', `/api/runs/${id}`)).json().data as RunAnswer).status;
const running = (id: string) =>
  eventually(async () => ((await status(id)) === 'running' ? true : undefined), 60_000, `${id} to run`);

describe('streams', () => {
  it("passes the run's stdout and stderr through unchanged on their own streams; the tool speaks on stderr", async () => {
    const name = unique('streams');
    const run = await orrery([
      'run',
      '--ceiling',
      '1',
      '--name',
      name,
      "printf 'out one\\n'; printf 'err one\\n' >&2; sleep 0.4; printf 'ünïcode ✓\\tand no newline'; printf 'err two' >&2",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('out one\nünïcode ✓\tand no newline');
    expect(run.stderr).toContain('err one\n');
    expect(run.stderr).toContain('err two');
    // What the tool says: where it ran, and how it ended, all on stderr.
    expect(run.stderr).toMatch(new RegExp(`${name} \\(run_[0-9a-f]{24}\\) placed on small`));
    expect(run.stderr).toMatch(new RegExp(`${name} \\(run_[0-9a-f]{24}\\) succeeded: exit 0`));
    expect(hasEscapes(run.stdout + run.stderr)).toBe(false);
  });

  it('sends working files (--file) and environment (--env NAME=value, or NAME for the value here)', async () => {
    const dir = await mkdtemp(join(home.home, 'files-'));
    await writeFile(join(dir, 'data.txt'), 'from a local file\n');
    const run = await orrery(
      [
        'run',
        '--ceiling',
        '1',
        '--file',
        join(dir, 'data.txt'),
        '--env',
        'GREETING=hello there',
        '--env',
        'FROM_HERE',
        '--',
        'cat data.txt; echo "$GREETING / $FROM_HERE"',
      ],
      { FROM_HERE: 'the tool’s environment' },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('from a local file\nhello there / the tool’s environment\n');
  });

  it('runs the words after its own flags as the command, flags of the command included', async () => {
    const run = await orrery(['run', '--ceiling', '1', 'echo', 'one', '--json', '-n']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('one --json -n\n');
  });
});

describe('the command keeps its arguments (issue 50)', () => {
  it("`-- sh -c 'echo hi'` prints hi, and `-- python3 -c 'print(\"a b\")'` prints a b", async () => {
    const shell = await orrery(['run', '--ceiling', '1', '--', 'sh', '-c', 'echo hi']);
    expect(shell).toMatchObject({ code: 0, stdout: 'hi\n' });
    const python = await orrery(['run', '--ceiling', '1', '--', 'python3', '-c', 'print("a b")']);
    expect(python.code, python.stderr).toBe(0);
    expect(python.stdout).toBe('a b\n');
  });

  it('passes each word as given: quotes, spaces, `$`, globs, newlines and empty words', async () => {
    const words = [
      "it's",
      '"double"',
      'a  b',
      '$HOME',
      '$(echo no)',
      '*',
      '*.txt',
      'two\nlines',
      '',
      '; echo no',
    ];
    const run = await orrery(['run', '--ceiling', '1', '--', 'printf', '[%s]\n', ...words]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(words.map((word) => `[${word}]\n`).join(''));
  });

  it("one word is a shell command line: `orrery run 'make && ./test'` still works", async () => {
    const run = await orrery(['run', '--ceiling', '1', 'echo $((1 + 2)) && echo "$HOME" | tr a-z A-Z']);
    expect(run).toMatchObject({ code: 0, stdout: '3\n/ROOT\n' });
  });

  it('--json shows the command as placed: the words as an array, one word as a string', async () => {
    const vector = await orrery(['run', '--json', '--ceiling', '1', '--', 'sh', '-c', 'exit 0']);
    expect(json(vector.stdout).data.command).toEqual(['sh', '-c', 'exit 0']);
    const line = await orrery(['run', '--json', '--ceiling', '1', 'exit 0']);
    expect(json(line.stdout).data.command).toBe('exit 0');
  });

  it('places again with its Idempotency-Key when the answer was lost: one run, its output once', async () => {
    const name = unique('lost-answer');
    losePlacingAnswer(name);
    const run = await orrery([
      'run',
      '--ceiling',
      '1',
      '--name',
      name,
      '--',
      'sh',
      '-c',
      'echo "once: $1"',
      'sh',
      'a b',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('once: a b\n');
    expect(run.stderr).toMatch(/answer was lost .*: asking again in 1 s with the same Idempotency-Key/);
    const runs = (await api.call('GET', '/api/runs?limit=200')).json().data as RunAnswer[];
    expect(runs.filter((each) => each.name === name)).toHaveLength(1);
  });
});

describe('exit codes', () => {
  let failed: { name: string; id: string };

  it("run: the run's own exit code", async () => {
    const name = unique('exits');
    const run = await orrery(['run', '--ceiling', '1', '--name', name, 'echo partial; exit 3']);
    expect(run).toMatchObject({ code: 3, stdout: 'partial\n' });
    expect(run.stderr).toMatch(/failed: exit 3/);
    failed = { name, id: (await api.call('GET', `/api/runs/${name}`)).json().data.id };
  });

  it('logs -f: the same once the run has finished; logs alone prints and exits 0', async () => {
    const followed = await orrery(['logs', '-f', failed.name]);
    expect(followed).toMatchObject({ code: 3, stdout: 'partial\n' });
    const plain = await orrery(['logs', failed.id]);
    expect(plain).toMatchObject({ code: 0, stdout: 'partial\n' });
  });

  it('logs -f follows a run live to its end, each stream to its own', async () => {
    const detached = await orrery([
      'run',
      '--detach',
      '--ceiling',
      '1',
      'sleep 1; echo first; echo warn >&2; sleep 1; echo second; exit 4',
    ]);
    const name = detached.stdout.trim();
    const follower = startCli(['logs', '-f', name], env());
    const done = await follower.finished;
    expect(done).toMatchObject({ code: 4, stdout: 'first\nsecond\n' });
    expect(done.stderr).toContain('warn\n');
  });

  it.each([
    { args: ['run', 'echo', 'hi'], names: "required option '--ceiling <cents>' not specified" },
    { args: ['run', '--ceilng', '1', 'echo'], names: "unknown option '--ceilng'", suggests: '--ceiling' },
    {
      args: ['run', '--ceiling', 'lots', 'echo'],
      names: "option '--ceiling <cents>' argument 'lots' is invalid",
    },
    {
      args: ['run', '--ceiling', '1', '--check', 'metrics.accuracy', 'echo'],
      names: "option '--check <expression>' argument 'metrics.accuracy' is invalid",
    },
    {
      args: ['run', '--ceiling', '1', '--check', 'metrics.accuracy >= require("fs")', 'echo'],
      names: "option '--check <expression>'",
    },
    {
      args: ['run', '--ceiling', '1', '--env', 'not a name=1', 'echo'],
      names: "option '--env <NAME=value>'",
    },
    { args: ['run', '--ceiling', '1', '--env', 'UNSET_HERE', 'echo'], names: '--env UNSET_HERE' },
    { args: ['run', '--ceiling', '1', '--file', '/no/such/file', 'echo'], names: '--file /no/such/file' },
    {
      args: ['run', '--ceiling', '1', '--network', 'closed', 'echo'],
      names: "option '--network <egress>' argument 'closed' is invalid",
    },
    { args: ['run', '--ceiling', '1', '--allow', ' ', 'echo'], names: "option '--allow <rule>'" },
    { args: ['logs', 'x', '--folow'], names: "unknown option '--folow'", suggests: '--follow' },
    { args: ['runs', '--status', 'done'], names: "option '--status <status>' argument 'done' is invalid" },
    { args: ['result', 'x', 'metrics..accuracy'], names: "argument 'path'" },
    { args: ['stopp', 'x'], names: "unknown command 'stopp'", suggests: 'stop' },
    { args: ['catalog', '--jsn'], names: "unknown option '--jsn'", suggests: '--json' },
  ])('exit 2 for a mistyped $args, naming it; nothing placed', async ({ args, names, suggests }) => {
    const before = (await api.call('GET', '/api/runs?limit=1')).json().data[0]?.id;
    const run = await orrery(args);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(names);
    if (suggests) expect(run.stderr).toContain(`(Did you mean ${suggests}?)`);
    expect((await api.call('GET', '/api/runs?limit=1')).json().data[0]?.id).toBe(before);
  });

  describe('exit 1: the API refused, its message on stderr, nothing placed or charged', () => {
    it.each([
      { what: 'an unknown size', args: ['--size', 'huge'], param: 'size' },
      {
        what: 'a ceiling below one second of the size',
        args: ['--ceiling', '0.001'],
        param: 'ceiling_cents',
      },
      { what: 'a platform variable', args: ['--env', 'ORRERY_RESULT_PATH=/tmp/x'], param: 'env' },
      { what: 'a name that is not one', args: ['--name', 'Not_A_Name'], param: 'name' },
      {
        what: 'a rule that is neither a CIDR nor a host name',
        args: ['--allow', 'example.com', '--allow', 'not/a rule'],
        param: 'network.allow[1]',
      },
      {
        what: 'an allow list with no network',
        args: ['--network', 'none', '--allow', 'example.com'],
        param: 'network.allow',
      },
    ])('$what', async ({ args, param }) => {
      const before = (await api.call('GET', '/api/runs?limit=1')).json().data[0]?.id;
      const run = await orrery(['run', '--ceiling', '1', ...args, 'echo never']);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(new RegExp(`^error: .+\\(${param.replace(/[[\]]/g, '\\$&')}[^)]*\\)\\n`));
      expect((await api.call('GET', '/api/runs?limit=1')).json().data[0]?.id).toBe(before);
    });

    it('an org without credit: 402, the message saying nothing was placed', async () => {
      const broke = await api.newOrg('CLI no credit', 0);
      const run = await orrery(['run', '--ceiling', '1', 'echo never'], { ORRERY_API_KEY: broke.key });
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toContain("The org's credit is used up, so nothing was placed or charged");
      expect((await api.call('GET', '/api/runs', { bearer: broke.key })).json().data).toEqual([]);
    });

    it.each([['logs'], ['stop'], ['result']])('%s of a run that does not exist', async (command) => {
      const run = await orrery([command, 'no-such-run']);
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toContain('No run with this name or id in the org');
    });

    it('an unknown key', async () => {
      const run = await orrery(['runs'], { ORRERY_API_KEY: 'orr_not_a_key' });
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toContain('Authorization: Bearer');
    });
  });
});

describe('network (issue 48)', () => {
  // The sandbox's interfaces, as its processes see them: slirp's tap device is its way out.
  const interfaces = "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort | tr '\\n' ' '";

  it('--network none: the run’s sandbox has loopback only, and the run says so', async () => {
    const name = unique('offline');
    const run = await orrery([
      'run',
      '--ceiling',
      '1',
      '--network',
      'none',
      '--name',
      name,
      '--',
      interfaces,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('lo ');
    expect(run.stderr).toMatch(
      new RegExp(`${name} \\(run_[0-9a-f]{24}\\) placed on small without a network`),
    );
    const answer = (await api.call('GET', `/api/runs/${name}`)).json().data as RunAnswer;
    expect(answer.network).toEqual({ egress: 'none', allow: [], deny: [] });
  });

  it('by default, and with --deny and --allow, the run’s sandbox has its way out, with the rules given', async () => {
    const open = await orrery(['run', '--ceiling', '1', '--', interfaces]);
    expect(open.code, open.stderr).toBe(0);
    expect(open.stdout).toBe('lo tap0 ');
    const name = unique('narrowed');
    const run = await orrery([
      'run',
      ...['--ceiling', '1', '--name', name],
      ...['--allow', 'pypi.org', '--allow', '151.101.7.0/24', '--deny', 'Example.COM'],
      '--',
      interfaces,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('lo tap0 ');
    expect(run.stderr).toContain('placed on small reaching only pypi.org, 151.101.7.0/24, not example.com,');
    const answer = (await api.call('GET', `/api/runs/${name}`)).json().data as RunAnswer;
    expect(answer.network).toEqual({
      egress: 'open',
      allow: ['pypi.org', '151.101.7.0/24'],
      deny: ['example.com'],
    });
  });
});

describe('stop', () => {
  it('stops a running run: exit 0, and the run is stopped; --json prints the run as it stopped', async () => {
    const placed = await orrery(['run', '--detach', '--ceiling', '1', 'sleep 300']);
    const name = placed.stdout.trim();
    const id = (await api.call('GET', `/api/runs/${name}`)).json().data.id as string;
    await running(id);
    const stop = await orrery(['stop', '--json', name]);
    expect(stop.code, stop.stderr).toBe(0);
    const stopped = json(stop.stdout);
    expect(stopped.data).toMatchObject({
      id,
      status: 'stopped',
      exit_code: null,
      stopped_by: { kind: 'key' },
    });
    expect(stopped.data).toMatchObject(unknownField);
    expect(stop.stderr).toContain(`${name} (${id}) was stopped`);
    expect(await status(id)).toBe('stopped');
  });

  it('exits 0 when the run had already finished, changing nothing', async () => {
    const done = await orrery(['run', '--ceiling', '1', 'exit 5']);
    expect(done.code).toBe(5);
    const [name] = done.stderr.match(/run-[0-9a-f]{6}/) ?? [];
    const before = (await api.call('GET', `/api/runs/${name}`)).json().data;
    const stop = await orrery(['stop', name!]);
    expect(stop).toMatchObject({ code: 0, stdout: '' });
    expect(stop.stderr).toContain('failed: exit 5');
    expect((await api.call('GET', `/api/runs/${name}`)).json().data).toEqual(before);
  });
});

describe('--detach', () => {
  it("prints the run's name on stdout and returns once it is placed, the run going on", async () => {
    const name = unique('detached');
    const run = await orrery(['run', '--detach', '--ceiling', '1', '--name', name, 'sleep 300']);
    expect(run).toMatchObject({ code: 0, stdout: `${name}\n` });
    expect(run.stderr).toContain(`orrery logs -f ${name}`);
    const id = (await api.call('GET', `/api/runs/${name}`)).json().data.id as string;
    await running(id);
    const stop = await orrery(['stop', id]);
    expect(stop.code, stop.stderr).toBe(0);
  });

  it('with --json: the run as placed, as the API sent it', async () => {
    const run = await orrery(['run', '--detach', '--json', '--ceiling', '1', 'sleep 300']);
    expect(run.code, run.stderr).toBe(0);
    const placed = json(run.stdout);
    expect(placed.data).toMatchObject({
      status: 'placed',
      command: 'sleep 300',
      ceiling_cents: 1,
      exit_code: null,
    });
    expect(placed).toMatchObject(unknownField);
    expect(placed.data).toMatchObject(unknownField);
    // Stopped while it may still be starting; once the read model shows it, which under load can
    // come after the answer (the host waits for it only so long).
    const id = String(placed.data.id);
    await eventually(
      async () => ((await api.call('GET', `/api/runs/${id}`)).statusCode === 200 ? true : undefined),
      60_000,
      `${id} to be listed`,
    );
    const stop = await orrery(['stop', id]);
    expect(stop.code, stop.stderr).toBe(0);
    expect(await status(id)).toBe('stopped');
  });
});

describe('runs', () => {
  it('one run a line, name first, no header, newest first; --status active lists those holding hardware', async () => {
    const older = await orrery(['run', '--ceiling', '1', '--name', unique('older'), 'true']);
    expect(older.code).toBe(0);
    const newer = unique('newer');
    await orrery(['run', '--detach', '--ceiling', '1', '--name', newer, 'sleep 300']);
    const all = await orrery(['runs', '--limit', '2']);
    expect(all.code, all.stderr).toBe(0);
    const lines = all.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^${newer}\\s+(placed|running)\\s+small\\s`));
    expect(lines[1]).toMatch(/^older-\S+\s+succeeded\s+small\s/);
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual([newer, expect.stringMatching(/^older-/)]);

    const active = await orrery(['runs', '--status', 'active']);
    expect(
      active.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split(/\s+/)[0]),
    ).toEqual([newer]);

    const listed = await orrery(['runs', '--json']);
    const answer = JSON.parse(listed.stdout) as { data: RunAnswer[] };
    const times = answer.data.map((run) => Date.parse(String(run.placed_at)));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(answer.data[0]).toMatchObject({ name: newer, ...unknownField });
    expect(answer).toMatchObject(unknownField);
    await orrery(['stop', newer]);
    const none = await orrery(['runs', '--status', 'active']);
    expect(none).toMatchObject({ code: 0, stdout: '' });
  });
});

describe('--json output', () => {
  it('run --json: the run as it ended, as the API sent it, alone on stdout (the run’s output on stderr)', async () => {
    const run = await orrery(['run', '--json', '--ceiling', '1', 'echo to-out; echo to-err >&2; exit 2']);
    expect(run.code).toBe(2);
    const ended = json(run.stdout);
    expect(ended.data).toMatchObject({
      status: 'failed',
      exit_code: 2,
      output: { stdout_seq: 1, stderr_seq: 1 },
    });
    expect(ended).toMatchObject(unknownField);
    expect(ended.data).toMatchObject(unknownField);
    expect(ended).not.toHaveProperty('checks');
    expect(run.stderr).toContain('to-out\n');
    expect(run.stderr).toContain('to-err\n');
    // Whole: every field GET /api/runs/:id answers now.
    const now = (await api.call('GET', `/api/runs/${ended.data.id}`)).json();
    expect(ended).toEqual({ ...now, ...unknownField, data: { ...now.data, ...unknownField } });
  });

  it('logs --json: the lines with their sequence numbers per stream, then the end line', async () => {
    const run = await orrery(['run', '--ceiling', '1', 'echo a; sleep 0.4; echo b >&2; sleep 0.4; echo c']);
    const [name] = run.stderr.match(/run-[0-9a-f]{6}/) ?? [];
    const logs = await orrery(['logs', '--json', name!]);
    expect(logs.code).toBe(0);
    const lines = logs.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.slice(0, -1)).toEqual([
      { seq: 1, stream: 'stdout', text: 'a\n' },
      { seq: 1, stream: 'stderr', text: 'b\n' },
      { seq: 2, stream: 'stdout', text: 'c\n' },
    ]);
    expect(lines.at(-1)).toMatchObject({ status: 'succeeded', exit_code: 0, run: { name } });
    const followed = await orrery(['logs', '--json', '-f', name!]);
    expect(followed).toMatchObject({ code: 0, stdout: logs.stdout });
  });

  it('catalog --json: the answer of GET /api/catalog; catalog: one size a line', async () => {
    const catalog = await orrery(['catalog', '--json']);
    expect(catalog.code).toBe(0);
    const direct = (await api.call('GET', '/api/catalog')).json();
    const answer = JSON.parse(catalog.stdout) as { data: Record<string, unknown>[] };
    expect(answer).toEqual({
      ...direct,
      ...unknownField,
      data: direct.data.map((size: object) => ({ ...size, ...unknownField })),
    });
    const table = await orrery(['catalog']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual(answer.data.map((size) => size.size));
    expect(lines[0]).toMatch(
      /^small\s+1 cpu\s+\d+ MiB\s+8 GiB disk\s+0\.002 cents\/s\s+7\.2 cents\/hour\s+least ceiling 0\.002 cents\s+available$/,
    );
  });
});

describe('result and checks', () => {
  const writes = (result: object, exit = 0) =>
    `printf '%s' '${JSON.stringify(result)}' > "$ORRERY_RESULT_PATH"; exit ${exit}`;
  const result = { metrics: { accuracy: 0.93, loss: 0.4 }, model: { path: 'out/model.bin' } };

  it('result prints the object, or the value at a dotted path (a string as its text)', async () => {
    const name = unique('result');
    expect((await orrery(['run', '--ceiling', '1', '--name', name, writes(result)])).code).toBe(0);
    const whole = await orrery(['result', name]);
    expect(whole.code).toBe(0);
    expect(JSON.parse(whole.stdout)).toEqual(result);
    expect(await orrery(['result', name, 'metrics.accuracy'])).toMatchObject({ code: 0, stdout: '0.93\n' });
    expect(await orrery(['result', name, 'model.path'])).toMatchObject({
      code: 0,
      stdout: 'out/model.bin\n',
    });
    expect(JSON.parse((await orrery(['result', name, 'metrics'])).stdout)).toEqual(result.metrics);
    const missing = await orrery(['result', name, 'metrics.f1']);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toContain(`The result of ${name} has no value at metrics.f1`);
    const asSent = await orrery(['result', '--json', name]);
    expect(JSON.parse(asSent.stdout)).toEqual({ data: result });

    const none = await orrery(['run', '--ceiling', '1', 'true']);
    const [noneName] = none.stderr.match(/run-[0-9a-f]{6}/) ?? [];
    const refused = await orrery(['result', noneName!]);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toContain('The run wrote no result');
  });

  it('run --check judges the result: `checks` in JSON with name and verdict; the exit code stays the run’s', async () => {
    const run = await orrery([
      'run',
      '--json',
      '--ceiling',
      '1',
      '--check',
      'metrics.accuracy >= 0.9',
      '--check',
      'metrics.loss < 0.1',
      '--check',
      'metrics.f1 > 0.5',
      '--check',
      'model.path == "out/model.bin"',
      writes(result, 3),
    ]);
    expect(run.code).toBe(3);
    const answer = json(run.stdout) as ReturnType<typeof json> & { checks: Record<string, unknown>[] };
    expect(answer.data).toMatchObject({ status: 'failed', exit_code: 3, has_result: true, ...unknownField });
    expect(answer.checks).toEqual([
      {
        name: 'metrics.accuracy >= 0.9',
        verdict: 'passed',
        path: 'metrics.accuracy',
        operator: '>=',
        expected: 0.9,
        actual: 0.93,
      },
      {
        name: 'metrics.loss < 0.1',
        verdict: 'failed',
        path: 'metrics.loss',
        operator: '<',
        expected: 0.1,
        actual: 0.4,
      },
      {
        name: 'metrics.f1 > 0.5',
        verdict: 'missing',
        path: 'metrics.f1',
        operator: '>',
        expected: 0.5,
        reason: 'the result has no value at metrics.f1',
      },
      {
        name: 'model.path == "out/model.bin"',
        verdict: 'passed',
        path: 'model.path',
        operator: '==',
        expected: 'out/model.bin',
        actual: 'out/model.bin',
      },
    ]);
  });

  it('passing checks on a failed run and failing checks on a clean one: the two are independent', async () => {
    const clean = await orrery([
      'run',
      '--ceiling',
      '1',
      '--check',
      'metrics.accuracy > 0.99',
      writes(result, 0),
    ]);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toBe('');
    expect(clean.stderr).toContain('check failed: metrics.accuracy > 0.99 (0.93)');
    const noResult = await orrery([
      'run',
      '--json',
      '--ceiling',
      '1',
      '--check',
      'metrics.accuracy > 0',
      'exit 0',
    ]);
    expect(noResult.code).toBe(0);
    expect(json(noResult.stdout).checks).toEqual([
      expect.objectContaining({ name: 'metrics.accuracy > 0', verdict: 'no_result' }),
    ]);
  });
});

describe('the spend ceiling', () => {
  it('a run stopped at its ceiling: exit 1, the tool saying so; --json status ceiling_reached', async () => {
    // 0.01 cents at 0.002 cents a second (small): five seconds.
    const run = await orrery(['run', '--json', '--ceiling', '0.01', 'echo start; sleep 120']);
    expect(run.code).toBe(1);
    expect(json(run.stdout).data).toMatchObject({
      status: 'ceiling_reached',
      exit_code: null,
      billed_seconds: 5,
      cost_cents: 0.01,
    });
    expect(run.stderr).toContain('start\n');
    expect(run.stderr).toContain('reached its ceiling of 0.01 cents and was stopped');
  });
});

describe('API key without login', () => {
  it('a key a person made on the dashboard works like one from login', async () => {
    const person = await signUp(api.platform.api);
    const orgId = person.orgs[0]!.id;
    const made = await asPerson(api.platform.api, person, 'POST', `/api/orgs/${orgId}/keys`, {
      body: { name: 'ci', scopes: ['sandboxes:write'] },
    });
    expect(made.statusCode, made.body).toBe(201);
    const key = made.json().data.key as string;
    const catalog = await orrery(['catalog'], { ORRERY_API_KEY: key });
    expect(catalog.code, catalog.stderr).toBe(0);
    expect(catalog.stdout).toMatch(/^small\s/);
    const list = await orrery(['runs', '--json'], { ORRERY_API_KEY: key });
    expect(list).toMatchObject({ code: 0 });
    expect(JSON.parse(list.stdout).data).toEqual([]);
  });
});

describe('at a terminal', () => {
  it('colours each status: green running, dark red failed, mustard ceiling reached, grey a clean finish', async () => {
    const org = await api.newOrg('CLI colours');
    const as = { ORRERY_API_KEY: org.key };
    await orrery(['run', '--ceiling', '1', 'true'], as);
    await orrery(['run', '--ceiling', '1', 'exit 1'], as);
    await orrery(['run', '--ceiling', '0.002', 'sleep 60'], as);
    await orrery(['run', '--detach', '--ceiling', '1', '--name', 'still-going', 'sleep 300'], as);
    const id = (await api.call('GET', '/api/runs/still-going', { bearer: org.key })).json().data.id as string;
    await eventually(
      async () =>
        (await api.call('GET', `/api/runs/${id}`, { bearer: org.key })).json().data.status === 'running'
          ? true
          : undefined,
      60_000,
    );
    const terminal = await runCliInTerminal(['runs'], env(as));
    expect(terminal.code).toBe(0);
    expect(terminal.stdout).toContain('\u001b[38;5;34mrunning\u001b[39m');
    expect(terminal.stdout).toContain('\u001b[38;5;124mfailed\u001b[39m');
    expect(terminal.stdout).toContain('\u001b[38;5;178mceiling_reached\u001b[39m');
    expect(terminal.stdout).toContain('\u001b[38;5;245msucceeded\u001b[39m');
    // Off on a pipe, and at a terminal with NO_COLOR.
    const piped = await orrery(['runs'], as);
    expect(piped.stdout).toMatch(/still-going\s+running/);
    expect(hasEscapes(piped.stdout)).toBe(false);
    const plain = await runCliInTerminal(['runs'], env({ ...as, NO_COLOR: '1' }));
    expect(plain.stdout).toMatch(/still-going\s+running/);
    expect(hasEscapes(plain.stdout)).toBe(false);
    await orrery(['stop', id], as);
  });

  it('Ctrl-C while attached detaches: the run goes on, the tool says so with hints, exit 130', async () => {
    const name = unique('interrupted');
    const terminal = await runCliInTmux(
      ['run', '--ceiling', '1', '--name', name, 'echo started; while true; do sleep 1; done'],
      env(),
    );
    try {
      await terminal.showing(/^started$/m);
      const id = (await api.call('GET', `/api/runs/${name}`)).json().data.id as string;
      await terminal.press('C-c');
      expect(await terminal.exitCode()).toBe(130);
      const screen = await terminal.screen();
      expect(screen).toContain(`Detached from ${name} (${id}): it is still running`);
      expect(screen).toContain('ceiling of 1 cents');
      expect(screen).toContain(`orrery logs -f ${name}`);
      expect(screen).toContain(`orrery stop ${name}`);
      // The run goes on: still running after the tool has gone, until it is stopped.
      expect(await status(id)).toBe('running');
      const more = await orrery(['logs', name]);
      expect(more.stdout).toBe('started\n');
      expect((await orrery(['stop', name])).code).toBe(0);
      expect(await status(id)).toBe('stopped');
    } finally {
      await terminal.close();
    }
  });
});
