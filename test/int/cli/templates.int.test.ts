import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareTimeoutMs, type RunAnswer, type RunApi } from '../runs/given.ts';
import { newHome, runCli, startRunCliPlatform } from './given.ts';

// `orrery template list | create | delete` and `orrery run --template` (issue 48): the real binary
// in a child process, a key from ORRERY_API_KEY, against the API and a sandbox host of real
// sandboxes; a recipe with a real Debian package, built from the host's mirror.

let api: RunApi;
let url: string;
let home: Awaited<ReturnType<typeof newHome>>;
beforeAll(async () => {
  ({ api, url } = await startRunCliPlatform());
  home = await newHome();
}, prepareTimeoutMs);
afterAll(async () => {
  await home.remove();
  await api?.cleanup();
});

const orrery = (args: string[]) => runCli(args, { home: home.home, url, extra: { ORRERY_API_KEY: api.key } });
const unique = (label: string) => `${label}-${Date.now().toString(36)}`;
const buildTimeoutMs = 600_000;

describe('a template from a recipe, then a run from it', () => {
  const name = unique('jq-cli');

  it(
    'create follows the build until it is ready, and exits 0',
    async () => {
      const created = await orrery([
        'template',
        'create',
        ...['--name', name, '--package', 'jq'],
        ...['--run', 'echo from-template > /etc/orrery-cli'],
      ]);
      expect(created.code, created.stderr).toBe(0);
      expect(created.stderr).toMatch(new RegExp(`${name} \\(tpl_[0-9a-f]{24}\\) building on `));
      expect(created.stderr).toContain(`${name} is ready`);
      expect(created.stdout).toBe('');
    },
    buildTimeoutMs,
  );

  it('list prints it on a line, name first; --json prints the API’s answer', async () => {
    const listed = await orrery(['template', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    const line = listed.stdout.split('\n').find((each) => each.startsWith(`${name} `));
    expect(line).toMatch(/ ready +recipe jq \+ 1 command +\S+ +\S+Z +tpl_[0-9a-f]{24}$/);
    const json = await orrery(['template', 'list', '--json']);
    const answer = JSON.parse(json.stdout) as { data: { name: string; status: string }[] };
    expect(answer.data.find((each) => each.name === name)?.status).toBe('ready');
  });

  it('run --template starts the run’s sandbox from it, and the run says so', async () => {
    const runName = unique('from-template');
    const run = await orrery([
      'run',
      ...['--ceiling', '1', '--template', name, '--name', runName],
      '--',
      'jq --version && cat /etc/orrery-cli',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^jq-1\.\d.*\nfrom-template\n$/s);
    const template = (await api.call('GET', `/api/templates/${name}`)).json().data as { id: string };
    expect(run.stderr).toContain(`placed on small from template ${template.id}`);
    const answer = (await api.call('GET', `/api/runs/${runName}`)).json().data as RunAnswer;
    expect(answer.template).toBe(template.id);
  });

  it('delete removes it: exit 0, and list no longer shows it', async () => {
    const deleted = await orrery(['template', 'delete', name]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stderr).toMatch(new RegExp(`Deleted ${name} \\(tpl_[0-9a-f]{24}\\)`));
    expect((await orrery(['template', 'list'])).stdout).not.toContain(`${name} `);
  });
});

describe('what fails', () => {
  it(
    'a recipe that does not build: exit 1, the end of its build log on stderr; a run from it is refused',
    async () => {
      const name = unique('broken-cli');
      const created = await orrery([
        'template',
        'create',
        '--name',
        name,
        '--package',
        'no-such-package-orrery',
      ]);
      expect(created.code).toBe(1);
      expect(created.stderr).toContain(`${name} failed`);
      expect(created.stderr).toContain('Unable to locate package no-such-package-orrery');
      const run = await orrery(['run', '--ceiling', '1', '--template', name, '--', 'true']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`The template \`${name}\``);
      expect(run.stderr).toContain('(template)');
    },
    buildTimeoutMs,
  );

  it('a package name apt would take for an option: exit 1, naming the field, nothing built', async () => {
    const name = unique('refused-cli');
    const created = await orrery(['template', 'create', '--name', name, '--package', '-o=Dir=/']);
    expect(created.code).toBe(1);
    expect(created.stderr).toContain('(recipe.packages[0])');
    expect((await api.call('GET', `/api/templates/${name}`)).statusCode).toBe(404);
  });

  it('create without --name, or template without an action: exit 2', async () => {
    expect((await orrery(['template', 'create', '--package', 'jq'])).code).toBe(2);
    expect((await orrery(['template'])).code).toBe(2);
  });
});
