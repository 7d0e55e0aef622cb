import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createOrg, grantCredit } from '../../../api/admin/commands.ts';
import { eventually } from '../../harness/platform.ts';
import { asPerson, type LoggedIn, signUp } from '../people/given.ts';
import {
  type CliPlatform,
  hasEscapes,
  newHome,
  runCli,
  runCliInTerminal,
  startCliPlatform,
} from './given.ts';

// The tool in scripts (spec 002, "Command-line tool behaviour in scripts"): a key from the
// environment without any login, exit 2 for a mistyped command naming it, the stored key only
// for its own API, results on stdout and the rest on stderr, colour only on a terminal.

let cli: CliPlatform;
let home: Awaited<ReturnType<typeof newHome>>;
let person: LoggedIn;
/** A key the person made under Settings, as a CI job would hold it. */
let personKey: string;
/** An operator's key (no person) of an org with credit and a day of usage. */
let operator: { key: string; orgId: string; orgName: string };

beforeAll(async () => {
  cli = await startCliPlatform();
  home = await newHome();
  person = await signUp(cli.platform.api);
  const made = await asPerson(cli.platform.api, person, 'POST', `/api/orgs/${person.orgs[0]!.id}/keys`, {
    body: { name: 'ci', scopes: ['traces:write'] },
  });
  expect(made.statusCode, made.body).toBe(201);
  personKey = made.json().data.key;

  const orgName = `CLI limits ${Date.now()}`;
  const org = await createOrg(cli.platform.admin, orgName);
  const { key } = await createApiKey(cli.platform.admin, org.orgId, ['traces:write']);
  await grantCredit(cli.platform.admin, org.orgId, 1234, 'cli test');
  await cli.platform.pool.query(
    `INSERT INTO usage_daily (org_id, model, day, requests, input_tokens, output_tokens, fallbacks)
     VALUES ($1, 'cli-test-model', current_date, 3, 30, 12, 0)`,
    [org.orgId],
  );
  operator = { key, orgId: org.orgId, orgName };
});
afterAll(async () => {
  await home.remove();
  await cli.stop();
});

const env = (extra: Record<string, string | undefined> = {}) => ({ home: home.home, url: cli.url, extra });

describe('ORRERY_API_KEY', () => {
  it('works without a login: whoami names the person, the org and the key', async () => {
    const me = await runCli(['whoami'], env({ ORRERY_API_KEY: personKey }));
    expect(me).toMatchObject({ code: 0, stderr: '' });
    expect(me.stdout).toBe(`${person.email} (${person.orgs[0]!.name}, ci)\n`);
  });

  it('an operator’s key reads as one, and limits summarises the org’s balance and usage', async () => {
    const me = await runCli(['whoami'], env({ ORRERY_API_KEY: operator.key }));
    expect(me).toMatchObject({ code: 0, stdout: `operator key (${operator.orgName})\n`, stderr: '' });

    const limits = await eventually(
      async () => {
        const run = await runCli(['limits'], env({ ORRERY_API_KEY: operator.key }));
        return run.stdout.startsWith('balance $12.34') ? run : undefined;
      },
      10_000,
      'the credit grant in the billing summary',
    );
    expect(limits).toMatchObject({ code: 0, stderr: '' });
    expect(limits.stdout).toBe(
      'balance $12.34 (credit granted $12.34, charged $0.00)\n' +
        'cli-test-model: $0.00 for 3 requests over 1 day\n',
    );
  });

  it('wins over the stored key; the stored key is used without it, and only for its own API', async () => {
    await mkdir(home.configDir, { recursive: true });
    const store = (apiUrl: string) =>
      writeFile(
        join(home.configDir, 'credentials.json'),
        JSON.stringify({
          api_url: apiUrl,
          org_id: operator.orgId,
          key_id: 'key_stored',
          key: operator.key,
          saved_at: new Date().toISOString(),
        }),
        { mode: 0o600 },
      );
    await store(cli.url);
    const withEnvKey = await runCli(['whoami'], env({ ORRERY_API_KEY: personKey }));
    expect(withEnvKey.stdout).toBe(`${person.email} (${person.orgs[0]!.name}, ci)\n`);
    // No ORRERY_API_URL and no flag: the stored login's API.
    const stored = await runCli(['whoami'], env({ ORRERY_API_URL: undefined }));
    expect(stored).toMatchObject({ code: 0, stdout: `operator key (${operator.orgName})\n` });

    // A login made against another API: its key is not sent here.
    await store('http://127.0.0.1:9');
    const elsewhere = await runCli(['whoami'], env());
    expect(elsewhere).toMatchObject({ code: 1, stdout: '' });
    expect(elsewhere.stderr).toContain(
      `Not logged in to ${cli.url} (the stored login is for http://127.0.0.1:9)`,
    );
    // --api-url, after the command too, wins over ORRERY_API_URL.
    const flagged = await runCli(
      ['whoami', '--api-url', `${cli.url}/`],
      env({ ORRERY_API_URL: 'http://127.0.0.1:9', ORRERY_API_KEY: personKey }),
    );
    expect(flagged).toMatchObject({ code: 0, stdout: `${person.email} (${person.orgs[0]!.name}, ci)\n` });
    await runCli(['logout'], env());
  });

  it('an unknown key: exit 1 with the API’s message on stderr, nothing on stdout', async () => {
    const refused = await runCli(['whoami', '--json'], env({ ORRERY_API_KEY: 'orr_not_a_key' }));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('Send a valid API key as "Authorization: Bearer <API_KEY>"');
  });
});

describe('a mistyped command line', () => {
  it.each([
    { args: ['whoamy'], names: "unknown command 'whoamy'", suggests: 'whoami' },
    { args: ['whoami', '--jsn'], names: "unknown option '--jsn'", suggests: '--json' },
    { args: ['limits', '--json', 'extra'], names: "too many arguments for 'limits'", suggests: undefined },
    { args: ['logout', '--json'], names: "unknown option '--json'", suggests: undefined },
    { args: ['--api-url', 'not a url', 'whoami'], names: '--api-url is not a URL', suggests: undefined },
    { args: [], names: 'Usage: orrery', suggests: undefined },
  ])('orrery $args: exit 2, naming it', async ({ args, names, suggests }) => {
    const run = await runCli(args, env({ ORRERY_API_KEY: personKey }));
    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(names);
    if (suggests) expect(run.stderr).toContain(`(Did you mean ${suggests}?)`);
  });

  it('--help and --version are answers: on stdout, exit 0', async () => {
    const help = await runCli(['--help'], env());
    expect(help).toMatchObject({ code: 0, stderr: '' });
    for (const command of [
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
    ])
      expect(help.stdout).toContain(command);
    const version = await runCli(['--version'], env());
    expect(version).toMatchObject({ code: 0, stdout: '0.1.0\n' });
  });
});

describe('colour', () => {
  const whoami = ['whoami'];
  const painted = (extra: Record<string, string | undefined>) => env({ ORRERY_API_KEY: personKey, ...extra });

  it('is off when stdout is a pipe, on with FORCE_COLOR', async () => {
    const piped = await runCli(whoami, painted({}));
    expect(piped.code).toBe(0);
    expect(hasEscapes(piped.stdout)).toBe(false);
    const forced = await runCli(whoami, painted({ FORCE_COLOR: '1' }));
    expect(forced.code).toBe(0);
    expect(forced.stdout).toBe(`\u001b[1m${person.email}\u001b[22m (${person.orgs[0]!.name}, ci)\n`);
  });

  it('is on at a terminal, off there with NO_COLOR or FORCE_COLOR=0', async () => {
    const terminal = await runCliInTerminal(whoami, painted({}));
    expect(terminal.code).toBe(0);
    expect(terminal.stdout).toContain(`\u001b[1m${person.email}\u001b[22m`);
    for (const off of [{ NO_COLOR: '1' }, { FORCE_COLOR: '0' }]) {
      const plain = await runCliInTerminal(whoami, painted(off));
      expect(plain.code).toBe(0);
      expect(plain.stdout).toContain(person.email);
      expect(hasEscapes(plain.stdout)).toBe(false);
    }
  });
});
