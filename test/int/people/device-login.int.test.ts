import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceGrantType } from '../../../api/people/device-routes.ts';
import { deviceLoginTiming } from '../../../domain/people/device-login.ts';
import { startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { type TestClock, testClock } from '../sandboxes/given.ts';
import { anAddress, asPerson, signUp } from './given.ts';

// The command-line login's server side (issue 15, item 2; RFC 8628): the CLI asks for a code and
// polls, a person approves it on the dashboard, and the CLI collects an org key with traces:write
// and sandboxes:write, never inference:invoke (spec 000, Authentication 2). The clock is the
// test's, so the CLI's polling interval passes without waiting for it.

let platform: TestPlatform;
let clock: TestClock;
beforeAll(async () => {
  clock = testClock();
  platform = await startTestPlatform({ clock: clock.now });
});
afterAll(() => platform.stop());

const afterInterval = () =>
  clock.advance(deviceLoginTiming.intervalSeconds + deviceLoginTiming.slowDownSeconds + 1);

/** This file's logins all start from one address, which no other test's share. */
const clientAddress = anAddress();

async function startLogin() {
  const answer = await platform.api.inject({
    method: 'POST',
    url: '/api/auth/device/code',
    payload: { client_id: 'orrery-cli' },
    remoteAddress: clientAddress,
  });
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json() as {
    device_code: string;
    user_code: string;
    verification_uri: string;
    verification_uri_complete: string;
    expires_in: number;
    interval: number;
  };
}

/** As an OAuth client polls: a form body. */
const poll = (deviceCode: string, grantType = deviceGrantType) =>
  platform.api.inject({
    method: 'POST',
    url: '/api/auth/device/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: grantType,
      device_code: deviceCode,
      client_id: 'orrery-cli',
    }).toString(),
  });

describe('command-line login', () => {
  it('is pending, then slowed, then approved on the dashboard, and gives one key without inference:invoke', async () => {
    const login = await startLogin();
    expect(login.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(login.verification_uri).toMatch(/\/device$/);
    expect(login.verification_uri_complete).toBe(`${login.verification_uri}?code=${login.user_code}`);
    expect(login).toMatchObject({ expires_in: 900, interval: 5 });

    const pending = await poll(login.device_code);
    expect(pending.statusCode).toBe(400);
    expect(pending.json()).toEqual({ error: 'authorization_pending', error_description: expect.any(String) });
    expect((await poll(login.device_code)).json().error).toBe('slow_down');
    afterInterval();

    const person = await signUp(platform.api);
    const typed = login.user_code.toLowerCase().replace('-', ' ');
    const shown = await asPerson(
      platform.api,
      person,
      'GET',
      `/api/auth/device/${encodeURIComponent(typed)}`,
    );
    expect(shown.json().data).toMatchObject({
      user_code: login.user_code,
      client_name: 'orrery-cli',
      status: 'pending',
    });
    const orgId = person.orgs[0]!.id;
    const approved = await asPerson(
      platform.api,
      person,
      'POST',
      `/api/auth/device/${login.user_code}/approve`,
      {
        body: { org_id: orgId },
      },
    );
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json().data.status).toBe('approved');
    afterInterval();

    const collected = await poll(login.device_code);
    expect(collected.statusCode, collected.body).toBe(200);
    const token = collected.json();
    expect(token).toMatchObject({
      token_type: 'Bearer',
      scope: 'traces:write sandboxes:write',
      org_id: orgId,
    });
    const me = await platform.api.inject({
      method: 'GET',
      url: '/api/me',
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(me.json().data).toMatchObject({
      key: {
        id: token.key_id,
        name: expect.stringMatching(/^orrery-cli login /),
        scopes: ['traces:write', 'sandboxes:write'],
      },
      person: { id: person.personId, email: person.email },
    });
    const keys = (await asPerson(platform.api, person, 'GET', `/api/orgs/${orgId}/keys`)).json().data;
    expect(keys).toContainEqual(expect.objectContaining({ id: token.key_id, created_by: person.personId }));

    // One code, one key.
    afterInterval();
    expect((await poll(login.device_code)).json().error).toBe('invalid_grant');
    const again = await asPerson(
      platform.api,
      person,
      'POST',
      `/api/auth/device/${login.user_code}/approve`,
      { body: { org_id: orgId } },
    );
    expect(again.statusCode).toBe(409);
  });

  it('answers access_denied once denied, expired_token after 15 minutes, invalid_grant for an unknown code', async () => {
    const person = await signUp(platform.api);
    const denied = await startLogin();
    expect(
      (await asPerson(platform.api, person, 'POST', `/api/auth/device/${denied.user_code}/deny`)).statusCode,
    ).toBe(200);
    expect((await poll(denied.device_code)).json().error).toBe('access_denied');

    const expired = await startLogin();
    clock.advance(deviceLoginTiming.lifetimeSeconds);
    expect((await poll(expired.device_code)).json().error).toBe('expired_token');
    const late = await asPerson(
      platform.api,
      person,
      'POST',
      `/api/auth/device/${expired.user_code}/approve`,
      {
        body: { org_id: person.orgs[0]!.id },
      },
    );
    expect(late.statusCode).toBe(409);

    expect((await poll('no-such-code')).json().error).toBe('invalid_grant');
    const wrongGrant = await poll(denied.device_code, 'client_credentials');
    expect(wrongGrant.statusCode).toBe(400);
    expect(wrongGrant.json().error).toBe('unsupported_grant_type');
    const malformed = await platform.api.inject({
      method: 'POST',
      url: '/api/auth/device/token',
      payload: { grant_type: deviceGrantType },
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toBe('invalid_request');
  });

  it('is approved only by a logged-in member of the org named, with the CSRF token', async () => {
    const login = await startLogin();
    const owner = await signUp(platform.api);
    const outsider = await signUp(platform.api);
    const path = `/api/auth/device/${login.user_code}/approve`;
    const body = { org_id: owner.orgs[0]!.id };
    expect((await platform.api.inject({ method: 'POST', url: path, payload: body })).statusCode).toBe(401);
    expect((await asPerson(platform.api, owner, 'POST', path, { body, csrf: false })).statusCode).toBe(403);
    const notMember = await asPerson(platform.api, outsider, 'POST', path, { body });
    expect(notMember.statusCode).toBe(404);
    expect(notMember.json().error).toMatchObject({ code: 'org_not_found', param: 'org_id' });
    expect((await asPerson(platform.api, owner, 'GET', '/api/auth/device/NOTACODE')).statusCode).toBe(404);
  });
});

describe('revoking a key with itself (RFC 7009)', () => {
  const revoke = (token: string) =>
    platform.api.inject({
      method: 'POST',
      url: '/api/auth/revoke',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
    });

  it('revokes the key sent, and answers 200 with nothing to tell for an unknown one', async () => {
    const person = await signUp(platform.api);
    const orgId = person.orgs[0]!.id;
    const created = await asPerson(platform.api, person, 'POST', `/api/orgs/${orgId}/keys`, {
      body: { name: 'laptop', scopes: ['traces:write'] },
    });
    const key = created.json().data.key as string;
    const me = () =>
      platform.api.inject({ method: 'GET', url: '/api/me', headers: { authorization: `Bearer ${key}` } });
    expect((await me()).statusCode).toBe(200);
    const answer = await revoke(key);
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({});
    expect((await me()).statusCode).toBe(401);
    const keys = (await asPerson(platform.api, person, 'GET', `/api/orgs/${orgId}/keys`)).json().data;
    expect(keys).toContainEqual(expect.objectContaining({ name: 'laptop', revoked: true }));
    expect((await revoke('orr_no_such_key')).statusCode).toBe(200);
    const malformed = await platform.api.inject({ method: 'POST', url: '/api/auth/revoke', payload: {} });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toBe('invalid_request');
    const unreadable = await platform.api.inject({
      method: 'POST',
      url: '/api/auth/device/token',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(unreadable.statusCode).toBe(400);
    expect(unreadable.json().error).toBe('invalid_request');
  });
});
