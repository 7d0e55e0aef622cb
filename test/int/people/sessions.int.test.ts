import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAttemptLimits } from '../../../domain/people/credentials.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { anAddress, asPerson, loggedIn, password, signUp, uniqueEmail } from './given.ts';

// Sign-up, login, logout and the session (issue 15, item 1), through the API's HTTP surface with
// the real stack: the person stream and the org stream projected, sessions in Postgres.

let platform: TestPlatform;
/** While set, the people read model writes nothing until it settles. */
let peopleHeldUntil: Promise<void> | undefined;
beforeAll(async () => {
  platform = await startTestPlatform({
    beforeProject: { 'orrery-person-postgres': async () => peopleHeldUntil },
  });
});
afterAll(() => platform.stop());

/** This file's logins all come from one address, which no other test's share. */
const clientAddress = anAddress();
const login = (email: string, secret: string, headers: Record<string, string> = {}) =>
  platform.api.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password: secret },
    headers,
    remoteAddress: clientAddress,
  });

describe('sign-up', () => {
  it('creates the person, their own org with them as owner, and a session in an httpOnly SameSite cookie', async () => {
    const email = uniqueEmail('grace');
    const answer = await platform.api.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email, name: 'Grace', password, org_name: 'Compilers' },
    });
    expect(answer.statusCode, answer.body).toBe(201);
    const cookie = answer.cookies.find((candidate) => candidate.name === 'orrery_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    const person = loggedIn(answer);
    expect(person.email).toBe(email.toLowerCase());
    expect(person.orgs).toEqual([{ id: expect.stringMatching(/^org_/), name: 'Compilers', role: 'owner' }]);
    // The password is never answered or published in clear; the stored hash is argon2id.
    expect(answer.body).not.toContain(password);
    const stored = await platform.pool.query('SELECT password_hash FROM people WHERE person_id = $1', [
      person.personId,
    ]);
    expect(stored.rows[0]?.password_hash ?? '').toMatch(/^\$argon2id\$/);
    const session = await asPerson(platform.api, person, 'GET', '/api/auth/session');
    expect(session.statusCode, session.body).toBe(200);
    expect(session.json().data).toMatchObject({
      person: { id: person.personId, name: 'Grace' },
      orgs: person.orgs,
    });
  });

  it('answers once the person can be seen: the members list names them, and they can log in', async () => {
    // Asked at once, as the dashboard does on the page sign-up opens.
    const person = await signUp(platform.api, { name: 'Barbara' });
    const members = await asPerson(platform.api, person, 'GET', `/api/orgs/${person.orgs[0]!.id}/members`);
    expect(members.statusCode, members.body).toBe(200);
    expect(members.json().data.members).toEqual([
      expect.objectContaining({ person_id: person.personId, name: 'Barbara', email: person.email }),
    ]);
    expect((await login(person.email, password)).statusCode).toBe(200);
  });

  it('answers 503 when the people read model does not show the person within 5 s; they can log in once it does', async () => {
    const held = Promise.withResolvers<void>();
    peopleHeldUntil = held.promise;
    const email = uniqueEmail('frances');
    try {
      const answer = await platform.api.inject({
        method: 'POST',
        url: '/api/auth/signup',
        payload: { email, name: 'Frances', password },
      });
      expect(answer.statusCode, answer.body).toBe(503);
      expect(answer.json().error).toMatchObject({ code: 'unavailable' });
      expect(answer.cookies).toEqual([]);
    } finally {
      peopleHeldUntil = undefined;
      held.resolve();
    }
    // Recorded all the same: the email stays claimed, and the person logs in once projected.
    const retried = await platform.api.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email, name: 'Frances', password },
    });
    expect(retried.statusCode).toBe(409);
    const login200 = await eventually(
      async () => {
        const answer = await login(email, password);
        return answer.statusCode === 200 ? answer : undefined;
      },
      5_000,
      'the person in the read model',
    );
    expect(loggedIn(login200).orgs).toHaveLength(1);
  });

  it('refuses an email already taken, in any case, naming the field', async () => {
    const email = uniqueEmail('taken');
    await signUp(platform.api, { email });
    const again = await platform.api.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email: ` ${email.toUpperCase()} `, name: 'Other', password },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'email_taken', param: 'email' });
  });

  it('refuses a short password and a malformed email with 422 and the field', async () => {
    const short = await platform.api.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email: uniqueEmail('short'), name: 'S', password: 'short' },
    });
    expect(short.statusCode).toBe(422);
    expect(short.json().error).toMatchObject({ code: 'invalid_request', param: 'password' });
    const malformed = await platform.api.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email: 'not an email', name: 'S', password },
    });
    expect(malformed.json().error).toMatchObject({ code: 'invalid_request', param: 'email' });
  });

  it('refuses a sign-up a browser marks as sent by another site', async () => {
    const answer = await platform.api.inject({
      method: 'POST',
      url: '/api/auth/signup',
      headers: { 'sec-fetch-site': 'cross-site' },
      payload: { email: uniqueEmail('csrf'), name: 'C', password },
    });
    expect(answer.statusCode).toBe(403);
    expect(answer.json().error.code).toBe('cross_site_request');
  });
});

describe('login and logout', () => {
  it('logs in with the password, refuses a wrong one or an unknown email alike, and logs out', async () => {
    const person = await signUp(platform.api);
    const answer = await login(person.email, password);
    expect(answer.statusCode, answer.body).toBe(200);
    const second = loggedIn(answer);
    expect(second.cookie).not.toBe(person.cookie);
    expect(second.orgs).toEqual(person.orgs);

    const wrong = await login(person.email, 'not the password at all');
    const unknown = await login(uniqueEmail('nobody'), password);
    for (const refused of [wrong, unknown]) {
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error.code).toBe('invalid_credentials');
      expect(refused.cookies).toEqual([]);
    }

    // Logging out changes something: without the session's CSRF token it is refused.
    const forged = await asPerson(platform.api, second, 'POST', '/api/auth/logout', { csrf: false });
    expect(forged.statusCode).toBe(403);
    expect(forged.json().error.code).toBe('csrf_token_invalid');
    const wrongToken = await asPerson(
      platform.api,
      { ...second, csrf: person.csrf },
      'POST',
      '/api/auth/logout',
    );
    expect(wrongToken.statusCode).toBe(403);
    const out = await asPerson(platform.api, second, 'POST', '/api/auth/logout');
    expect(out.statusCode).toBe(204);
    const after = await asPerson(platform.api, second, 'GET', '/api/auth/session');
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('session_expired');
    // The first session is a session of its own, still live.
    expect((await asPerson(platform.api, person, 'GET', '/api/auth/session')).statusCode).toBe(200);
  });

  it('answers 401 without a cookie, telling the caller to log in', async () => {
    const answer = await platform.api.inject({ method: 'GET', url: '/api/auth/session' });
    expect(answer.statusCode).toBe(401);
    expect(answer.json().error).toMatchObject({
      code: 'unauthorized',
      message: expect.stringContaining('Log in'),
    });
  });

  it('limits login attempts per account, whatever their outcome, with Retry-After', async () => {
    const person = await signUp(platform.api);
    const { max } = loginAttemptLimits.perAccount;
    for (let attempt = 0; attempt < max; attempt += 1) {
      expect((await login(person.email, 'a wrong password')).statusCode).toBe(401);
    }
    const limited = await login(person.email, password);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('too_many_attempts');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another account from the same address is not held back by this one's limit.
    const other = await signUp(platform.api);
    expect((await login(other.email, password)).statusCode).toBe(200);
  });
});
