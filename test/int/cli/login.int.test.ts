import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deviceLoginTiming } from '../../../domain/people/device-login.ts';
import { eventually } from '../../harness/platform.ts';
import { asPerson, type LoggedIn, signUp } from '../people/given.ts';
import { type CliPlatform, newHome, runCli, startCli, startCliPlatform } from './given.ts';

// `orrery login`, `whoami`, `limits` and `logout` as a person runs them (spec 002's command-line
// table; issue 16): the tool shows a code on stderr, the test plays the person who signs up and
// approves it on the dashboard, and the tool stores the key it collects.

let cli: CliPlatform;
beforeAll(async () => {
  cli = await startCliPlatform();
});
afterAll(() => cli.stop());

const homes: { remove(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(homes.splice(0).map((home) => home.remove()));
  cli.onPoll = undefined;
});

async function home() {
  const made = await newHome();
  homes.push(made);
  return made;
}

const userCodePattern = /Code: ([A-Z]{4}-[A-Z]{4})/;

/** `orrery login` started in a fresh home, once it shows its code. */
async function loginStarted(args: string[] = [], where?: Awaited<ReturnType<typeof newHome>>) {
  where ??= await home();
  const env = { home: where.home, url: cli.url };
  const running = startCli(['login', ...args], env);
  const [, userCode] = await running.stderrMatching(userCodePattern);
  return { ...where, env, running, userCode: userCode! };
}

const approve = (person: LoggedIn, userCode: string) =>
  asPerson(cli.platform.api, person, 'POST', `/api/auth/device/${userCode}/approve`, {
    body: { org_id: person.orgs[0]!.id },
  });

describe('orrery login', () => {
  it('shows a code, waits for the person to approve it, stores the key 0600 in a 0700 directory, and whoami names them', async () => {
    // One poll answered sooner than the interval, as if the tool had polled early: the server says
    // slow_down once; a tool that did not add 5 seconds to its interval would be told again.
    const pollsBefore = cli.polls.length;
    cli.onPoll = (outcome) => {
      if (outcome === 'authorization_pending' && cli.polls.length === pollsBefore + 1)
        cli.clock.advance(-(deviceLoginTiming.intervalSeconds - 1));
    };
    const login = await loginStarted(['--json']);
    const stderrSoFar = await login.running.stderrMatching(/open this page[^\n]*\n\s*\n\s*(\S+)/);
    expect(stderrSoFar[1]).toBe(`${cli.url}/device?code=${login.userCode}`);

    const person = await signUp(cli.platform.api);
    // Approved only once the tool has polled, been slowed down and polled again.
    await eventually(async () => (cli.polls.length >= pollsBefore + 3 ? true : undefined), 20_000, 'polls');
    expect((await approve(person, login.userCode)).statusCode).toBe(200);
    const done = await login.running.finished;
    expect(done.code, done.stderr).toBe(0);

    const polls = cli.polls.slice(pollsBefore);
    expect(polls.slice(0, 3)).toEqual(['authorization_pending', 'slow_down', 'authorization_pending']);
    expect(polls.at(-1)).toBe('200');
    expect(polls.filter((outcome) => outcome === 'slow_down')).toHaveLength(1);

    // stdout: the org and the key's id, never the key.
    const printed = JSON.parse(done.stdout);
    expect(printed).toEqual({ org_id: person.orgs[0]!.id, key_id: expect.stringMatching(/^key_/) });
    const file = join(login.configDir, 'credentials.json');
    const stored = JSON.parse(await readFile(file, 'utf8'));
    expect(stored).toMatchObject({ api_url: cli.url, org_id: printed.org_id, key_id: printed.key_id });
    expect(stored.key).toMatch(/\S{20,}/);
    expect(done.stdout).not.toContain(stored.key);
    expect(done.stderr).not.toContain(stored.key);
    expect(done.stderr).toContain(
      `Logged in to ${cli.url}: ${person.email} (${person.orgs[0]!.name}, orrery-cli login`,
    );
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(login.configDir)).mode & 0o777).toBe(0o700);

    // The stored key is the one whoami uses.
    const me = await runCli(['whoami'], login.env);
    expect(me).toMatchObject({ code: 0, stderr: '' });
    expect(me.stdout).toMatch(
      new RegExp(`^${person.email} \\(${person.orgs[0]!.name}, orrery-cli login \\d{4}-\\d{2}-\\d{2}\\)\\n$`),
    );

    // logout revokes the key at the API (RFC 7009), then forgets it.
    const out = await runCli(['logout'], login.env);
    expect(out, out.stderr).toMatchObject({ code: 0, stdout: '' });
    expect(out.stderr).toContain(`revoked and forgot the key ${printed.key_id}`);
    const afterLogout = await fetch(`${cli.url}/api/me`, {
      headers: { authorization: `Bearer ${stored.key}` },
    });
    expect(afterLogout.status).toBe(401);
  });

  it('stops with exit 1 and the server’s description when the person denies the code', async () => {
    const login = await loginStarted();
    const person = await signUp(cli.platform.api);
    const denied = await asPerson(
      cli.platform.api,
      person,
      'POST',
      `/api/auth/device/${login.userCode}/deny`,
    );
    expect(denied.statusCode).toBe(200);
    const done = await login.running.finished;
    expect(done.code).toBe(1);
    expect(done.stdout).toBe('');
    expect(done.stderr).toContain('The login was denied on the dashboard');
    await expect(stat(join(login.configDir, 'credentials.json'))).rejects.toThrow(/ENOENT/);
  });

  it('stops with exit 1 and the server’s description when the code expires before anyone approves it', async () => {
    const login = await loginStarted();
    cli.clock.advance(deviceLoginTiming.lifetimeSeconds);
    const done = await login.running.finished;
    expect(done.code).toBe(1);
    expect(done.stdout).toBe('');
    expect(done.stderr).toContain('The code expired before it was approved');
  });
});

describe('a logged-in tool', () => {
  let session: { env: { home: string; url: string }; configDir: string; person: LoggedIn; keyId: string };
  beforeAll(async () => {
    const kept = await newHome();
    afterAll(() => kept.remove());
    const login = await loginStarted(['--json'], kept);
    const person = await signUp(cli.platform.api);
    expect((await approve(person, login.userCode)).statusCode).toBe(200);
    const done = await login.running.finished;
    expect(done.code, done.stderr).toBe(0);
    session = { env: login.env, configDir: login.configDir, person, keyId: JSON.parse(done.stdout).key_id };
  });

  const apiGet = async (path: string) => {
    const stored = JSON.parse(await readFile(join(session.configDir, 'credentials.json'), 'utf8'));
    const answer = await fetch(`${cli.url}${path}`, { headers: { authorization: `Bearer ${stored.key}` } });
    expect(answer.status).toBe(200);
    return answer.text();
  };

  it('whoami --json and limits --json print the API’s answers whole, fields unknown to the tool included', async () => {
    const me = await runCli(['whoami', '--json'], session.env);
    expect(me).toMatchObject({ code: 0, stderr: '' });
    expect(me.stdout).toBe(`${await apiGet('/api/me')}\n`);
    expect(JSON.parse(me.stdout)).toMatchObject({
      data: { key: { id: session.keyId }, person: { email: session.person.email } },
      orrery_test_unknown: { kept: true },
    });

    const limits = await runCli(['limits', '--json'], session.env);
    expect(limits).toMatchObject({ code: 0, stderr: '' });
    expect(limits.stdout).toBe(`${await apiGet('/api/billing/summary')}\n`);
    expect(JSON.parse(limits.stdout)).toMatchObject({
      data: { org_id: session.person.orgs[0]!.id, balance_cents: expect.any(Number) },
      orrery_test_unknown: { kept: true },
    });
  });

  it('a revoked key: exit 1, the API’s message on stderr, nothing on stdout; logout forgets it, twice with exit 0', async () => {
    const orgId = session.person.orgs[0]!.id;
    const revoked = await asPerson(
      cli.platform.api,
      session.person,
      'DELETE',
      `/api/orgs/${orgId}/keys/${session.keyId}`,
    );
    expect(revoked.statusCode).toBe(204);
    const stored = JSON.parse(await readFile(join(session.configDir, 'credentials.json'), 'utf8'));
    await eventually(
      async () => {
        const answer = await fetch(`${cli.url}/api/me`, {
          headers: { authorization: `Bearer ${stored.key}` },
        });
        return answer.status === 401 ? true : undefined;
      },
      5_000,
      'the revocation',
    );
    for (const args of [['whoami'], ['whoami', '--json'], ['limits', '--json']]) {
      const refused = await runCli(args, session.env);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain('Send a valid API key as "Authorization: Bearer <API_KEY>"');
    }

    const out = await runCli(['logout'], session.env);
    expect(out).toMatchObject({ code: 0, stdout: '' });
    expect(out.stderr).toContain(`forgot the key ${session.keyId}`);
    await expect(stat(join(session.configDir, 'credentials.json'))).rejects.toThrow(/ENOENT/);
    const again = await runCli(['logout'], session.env);
    expect(again).toMatchObject({ code: 0, stdout: '' });
    expect(again.stderr).toContain('Not logged in');

    const after = await runCli(['whoami'], session.env);
    expect(after.code).toBe(1);
    expect(after.stdout).toBe('');
    expect(after.stderr).toContain(`Not logged in to ${cli.url}`);
  });
});
