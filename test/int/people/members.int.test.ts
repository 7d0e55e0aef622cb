import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enableTracing, grantCredit, tracingRequests } from '../../../api/admin/commands.ts';
import { loadOrg } from '../../../stores/org.ts';
import { type ModelServer, scriptedModel, startModelServer } from '../../harness/model-server.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../../harness/platform.ts';
import { asPerson, type LoggedIn, signUp, uniqueEmail } from './given.ts';

// An org's members, invitations and keys as its people manage them (issue 15, item 1), through
// HTTP with the real stack: membership is the org stream's, read back by the API's directory.

let platform: TestPlatform;
let model: ModelServer;
beforeAll(async () => {
  model = await startModelServer(() => ({ line: 'Resetting a password', usage: { input: 30, output: 3 } }));
  platform = await startTestPlatform({ models: [scriptedModel(model)] });
});
afterAll(async () => {
  await platform.stop();
  await model.close();
});

const orgOf = (person: LoggedIn) => person.orgs[0]!.id;

async function invite(owner: LoggedIn, email: string, role = 'member') {
  const answer = await asPerson(platform.api, owner, 'POST', `/api/orgs/${orgOf(owner)}/invitations`, {
    body: { email, role },
  });
  expect(answer.statusCode, answer.body).toBe(201);
  const { id, link } = answer.json().data as { id: string; link: string };
  return { id, token: decodeURIComponent(link.split('/invitations/')[1]!), link };
}

const members = (person: LoggedIn, orgId: string) =>
  asPerson(platform.api, person, 'GET', `/api/orgs/${orgId}/members`);

describe('invitations', () => {
  it('an owner invites by email; the person signs up with the link and joins that org instead of making one', async () => {
    const owner = await signUp(platform.api, { org_name: 'Lab' });
    const email = uniqueEmail('invitee');
    const { token, link } = await invite(owner, email);
    expect(link).toMatch(/^http:\/\/[^/]+\/invitations\/oinv_/);
    const invitee = await signUp(platform.api, { email, name: 'Invitee', invitation: token });
    expect(invitee.orgs).toEqual([{ id: orgOf(owner), name: 'Lab', role: 'member' }]);

    const listed = (await members(owner, orgOf(owner))).json().data;
    expect(listed.invitations).toEqual([]);
    expect(
      listed.members.map((member: { email: string; role: string }) => [member.email, member.role]).sort(),
    ).toEqual(
      [
        [owner.email, 'owner'],
        [email.toLowerCase(), 'member'],
      ].sort(),
    );
    // A member sees the list but may not invite.
    expect((await members(invitee, orgOf(owner))).statusCode).toBe(200);
    const refused = await asPerson(platform.api, invitee, 'POST', `/api/orgs/${orgOf(owner)}/invitations`, {
      body: { email: uniqueEmail('x') },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('not_owner');
  });

  it('is for its email only, and once: another person gets 404 and no account is left behind', async () => {
    const owner = await signUp(platform.api);
    const { token } = await invite(owner, uniqueEmail('meant'));
    const stranger = uniqueEmail('stranger');
    const answer = await platform.api.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email: stranger, name: 'S', password: 'correct horse battery staple', invitation: token },
    });
    expect(answer.statusCode).toBe(404);
    expect(answer.json().error.code).toBe('invitation_not_found');
    const claims = await platform.pool.query('SELECT 1 FROM email_claims WHERE email = $1', [
      stranger.toLowerCase(),
    ]);
    expect(claims.rowCount).toBe(0);
    // A logged-in person with another email cannot accept it either.
    const other = await signUp(platform.api);
    const accepted = await asPerson(platform.api, other, 'POST', '/api/invitations/accept', {
      body: { invitation: token },
    });
    expect(accepted.statusCode).toBe(404);
  });

  it('once withdrawn it answers 410 and leaves the list', async () => {
    const owner = await signUp(platform.api);
    const email = uniqueEmail('withdrawn');
    const { id, token } = await invite(owner, email);
    expect((await members(owner, orgOf(owner))).json().data.invitations).toEqual([
      expect.objectContaining({ id, email: email.toLowerCase(), role: 'member' }),
    ]);
    const withdrawn = await asPerson(
      platform.api,
      owner,
      'DELETE',
      `/api/orgs/${orgOf(owner)}/invitations/${id}`,
    );
    expect(withdrawn.statusCode).toBe(204);
    expect((await members(owner, orgOf(owner))).json().data.invitations).toEqual([]);
    const late = await platform.api.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email, name: 'Late', password: 'correct horse battery staple', invitation: token },
    });
    expect(late.statusCode).toBe(410);
    expect(late.json().error.code).toBe('invitation_closed');
  });
});

describe('members', () => {
  it('an owner removes a member, a member may leave, the last owner may not', async () => {
    const owner = await signUp(platform.api);
    const orgId = orgOf(owner);
    const joined = async () => {
      const email = uniqueEmail('member');
      return signUp(platform.api, { email, invitation: (await invite(owner, email)).token });
    };
    const removed = await joined();
    const leaving = await joined();
    expect(
      (await asPerson(platform.api, owner, 'DELETE', `/api/orgs/${orgId}/members/${removed.personId}`))
        .statusCode,
    ).toBe(204);
    // Removed: the org is gone from their session and its routes answer 404.
    const session = (await asPerson(platform.api, removed, 'GET', '/api/auth/session')).json().data;
    expect(session.orgs).toEqual([]);
    expect((await members(removed, orgId)).statusCode).toBe(404);
    // A member may not remove another, but may leave.
    const notOwner = await asPerson(
      platform.api,
      leaving,
      'DELETE',
      `/api/orgs/${orgId}/members/${owner.personId}`,
    );
    expect(notOwner.json().error.code).toBe('not_owner');
    expect(
      (await asPerson(platform.api, leaving, 'DELETE', `/api/orgs/${orgId}/members/${leaving.personId}`))
        .statusCode,
    ).toBe(204);
    const last = await asPerson(
      platform.api,
      owner,
      'DELETE',
      `/api/orgs/${orgId}/members/${owner.personId}`,
    );
    expect(last.statusCode).toBe(409);
    expect(last.json().error.code).toBe('last_owner');
  });
});

describe('keys under Settings', () => {
  it('a member creates a key with chosen scopes, sees it once, lists it without the secret, and revokes it', async () => {
    const owner = await signUp(platform.api);
    const orgId = orgOf(owner);
    const created = await asPerson(platform.api, owner, 'POST', `/api/orgs/${orgId}/keys`, {
      body: { name: 'playground', scopes: ['inference:invoke', 'traces:write'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const key = created.json().data;
    expect(key).toMatchObject({
      name: 'playground',
      scopes: ['inference:invoke', 'traces:write'],
      created_by: owner.personId,
      revoked: false,
    });
    const me = () =>
      platform.api.inject({ method: 'GET', url: '/api/me', headers: { authorization: `Bearer ${key.key}` } });
    expect((await me()).json().data.key).toEqual({
      id: key.id,
      name: 'playground',
      scopes: ['inference:invoke', 'traces:write'],
    });

    const listed = await asPerson(platform.api, owner, 'GET', `/api/orgs/${orgId}/keys`);
    expect(listed.json().data).toEqual([
      expect.objectContaining({ id: key.id, prefix: key.key.slice(0, 10) }),
    ]);
    expect(listed.body).not.toContain(key.key);

    const noScopes = await asPerson(platform.api, owner, 'POST', `/api/orgs/${orgId}/keys`, {
      body: { name: 'none', scopes: [] },
    });
    expect(noScopes.json().error).toMatchObject({ code: 'invalid_request', param: 'scopes' });

    const revokedAt = Date.now();
    expect(
      (await asPerson(platform.api, owner, 'DELETE', `/api/orgs/${orgId}/keys/${key.id}`)).statusCode,
    ).toBe(204);
    await eventually(
      async () => ((await me()).statusCode === 401 ? true : undefined),
      1_000,
      'the key refused',
    );
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
  });

  it('answers 404 for an org the person is not in, whatever it holds', async () => {
    const owner = await signUp(platform.api);
    const outsider = await signUp(platform.api);
    const answer = await asPerson(platform.api, outsider, 'GET', `/api/orgs/${orgOf(owner)}/keys`);
    expect(answer.statusCode).toBe(404);
    expect(answer.json().error.code).toBe('org_not_found');
  });
});

describe('what the dashboard reads with a session', () => {
  it("reads the org's billing, request log, traces and sandboxes without a key, and nothing without a session", async () => {
    const owner = await signUp(platform.api);
    const reads = ['/api/billing/summary', '/api/inference/requests', '/api/traces', '/api/sandboxes'];
    for (const url of reads) {
      const answer = await asPerson(platform.api, owner, 'GET', url);
      expect(answer.statusCode, `${url}: ${answer.body}`).toBe(200);
      const anonymous = await platform.api.inject({ method: 'GET', url });
      expect(anonymous.statusCode, url).toBe(401);
    }
    // Another org's id in Orrery-Org is refused, naming the header.
    const other = await signUp(platform.api);
    const foreign = await asPerson(platform.api, owner, 'GET', '/api/billing/summary', {
      headers: { 'orrery-org': orgOf(other) },
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toMatchObject({ code: 'org_not_found', param: 'Orrery-Org' });
  });
});

describe('the tracing beta', () => {
  it('a member asks once; an operator sees the request and grants it', async () => {
    const owner = await signUp(platform.api);
    const orgId = orgOf(owner);
    const org = async () => (await asPerson(platform.api, owner, 'GET', `/api/orgs/${orgId}`)).json().data;
    expect((await org()).tracing).toEqual({ enabled: false, requested_at: null });
    const asked = await asPerson(platform.api, owner, 'POST', `/api/orgs/${orgId}/tracing/request`);
    expect(asked.statusCode, asked.body).toBe(200);
    const requestedAt = asked.json().data.tracing.requested_at as string;
    expect(Date.parse(requestedAt)).toBeGreaterThan(Date.now() - 60_000);
    // Asking again changes nothing.
    const again = await asPerson(platform.api, owner, 'POST', `/api/orgs/${orgId}/tracing/request`);
    expect(again.json().data.tracing).toEqual({ enabled: false, requested_at: requestedAt });
    const waiting = await eventually(
      async () => (await tracingRequests(platform.pool)).find((request) => request.orgId === orgId),
      5_000,
      'the request in the read model',
    );
    expect(waiting.requestedAt).toBe(requestedAt);
    await enableTracing(platform.admin, orgId);
    await eventually(
      async () => ((await org()).tracing.enabled ? true : undefined),
      5_000,
      'tracing enabled',
    );
    expect((await tracingRequests(platform.pool)).map((request) => request.orgId)).not.toContain(orgId);
  });
});

describe('the Playground', () => {
  it('asks for a title with the session (and its CSRF token); the request log names the person who sent it, not a key', async () => {
    const owner = await signUp(platform.api, { name: 'Ada Playground' });
    const orgId = orgOf(owner);
    // Sign-up waited for the API's directory; the operator's commands read the consumers'
    // Postgres read model, which may bring the new org a moment later.
    await eventually(async () => loadOrg(platform.pool, orgId), 5_000, 'the org in the read model');
    await grantCredit(platform.admin, orgId, 100, 'playground');
    await eventually(async () => (platform.directory.hasCredit(orgId) ? true : undefined), 5_000, 'credit');
    const models = await asPerson(platform.api, owner, 'GET', '/api/inference/models');
    expect(models.json().data).toEqual([
      {
        id: 'scribe',
        object: 'model',
        writes: ['titles', 'previews'],
        deployed: true,
        price: { input_cents_per_million_tokens: 10, output_cents_per_million_tokens: 0 },
      },
    ]);
    const body = { messages: [{ role: 'user', content: 'How do I reset my password?' }] };
    const forged = await asPerson(platform.api, owner, 'POST', '/api/inference/scribe/v1/titles', {
      body,
      csrf: false,
    });
    expect(forged.statusCode).toBe(403);
    const titled = await asPerson(platform.api, owner, 'POST', '/api/inference/scribe/v1/titles', { body });
    expect(titled.statusCode, titled.body).toBe(200);
    expect(titled.json()).toMatchObject({ object: 'title', text: 'Resetting a password', fallback: false });
    const logged = await eventually(
      async () => {
        const rows = (await asPerson(platform.api, owner, 'GET', '/api/inference/requests')).json().data;
        return rows.length > 0 ? rows : undefined;
      },
      10_000,
      'the request in the log',
    );
    const person = { id: owner.personId, name: 'Ada Playground' };
    expect(logged[0]).toMatchObject({
      model: 'scribe',
      endpoint: 'titles',
      key: null,
      person,
      input_tokens: 30,
    });
    // Named, never by email: a key with `inference:invoke` reads this log too.
    expect(logged[0].person).toEqual(person);
    // The same in the request opened from the list (issue 50, item 4).
    const opened = await asPerson(platform.api, owner, 'GET', `/api/inference/requests/${logged[0].id}`);
    expect(opened.statusCode, opened.body).toBe(200);
    expect(opened.json()).toMatchObject({ id: logged[0].id, key: null, person });

    // A key's request names its key and no person, to the key as to the session.
    const created = await asPerson(platform.api, owner, 'POST', `/api/orgs/${orgId}/keys`, {
      body: { name: 'ci-bot', scopes: ['inference:invoke'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const key = created.json().data as { id: string; key: string };
    const keyed = await platform.api.inject({
      method: 'POST',
      url: '/api/inference/scribe/v1/titles',
      headers: { authorization: `Bearer ${key.key}` },
      payload: body,
    });
    expect(keyed.statusCode, keyed.body).toBe(200);
    const keyedId = keyed.headers['x-request-id'] as string;
    const keyedRow = await eventually(
      async () =>
        (await asPerson(platform.api, owner, 'GET', '/api/inference/requests'))
          .json()
          .data.find((row: { id: string }) => row.id === keyedId),
      10_000,
      "the key's request in the log",
    );
    expect(keyedRow).toMatchObject({ key: { id: key.id, name: 'ci-bot' }, person: null });
    const byKey = await platform.api.inject({
      method: 'GET',
      url: `/api/inference/requests/${keyedId}`,
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(byKey.json()).toMatchObject({ key: { id: key.id, name: 'ci-bot' }, person: null });
  });

  it("keeps the id of a person who left the org, without their name and email, as the log's key does a key it does not know", async () => {
    const owner = await signUp(platform.api);
    const orgId = orgOf(owner);
    await eventually(async () => loadOrg(platform.pool, orgId), 5_000, 'the org in the read model');
    await grantCredit(platform.admin, orgId, 100, 'playground');
    await eventually(async () => (platform.directory.hasCredit(orgId) ? true : undefined), 5_000, 'credit');
    const email = uniqueEmail('leaver');
    const leaver = await signUp(platform.api, {
      email,
      name: 'Leaver',
      invitation: (await invite(owner, email)).token,
    });
    const body = { messages: [{ role: 'user', content: 'Where is the quarterly report?' }] };
    const titled = await asPerson(platform.api, leaver, 'POST', '/api/inference/scribe/v1/titles', { body });
    expect(titled.statusCode, titled.body).toBe(200);
    const requestId = titled.headers['x-request-id'] as string;
    const listed = () =>
      asPerson(platform.api, owner, 'GET', '/api/inference/requests').then(
        (answer) => answer.json().data.find((row: { id: string }) => row.id === requestId) as unknown,
      );
    const named = await eventually(listed, 10_000, "the leaver's request in the log");
    expect(named).toMatchObject({
      key: null,
      person: { id: leaver.personId, name: 'Leaver' },
    });
    const left = await asPerson(
      platform.api,
      leaver,
      'DELETE',
      `/api/orgs/${orgId}/members/${leaver.personId}`,
    );
    expect(left.statusCode, left.body).toBe(204);
    expect(await listed()).toMatchObject({
      key: null,
      person: { id: leaver.personId, name: null },
    });
    const opened = await asPerson(platform.api, owner, 'GET', `/api/inference/requests/${requestId}`);
    expect(opened.json()).toMatchObject({ person: { id: leaver.personId, name: null } });
  });
});

describe('orgs and invitation links', () => {
  it('a person creates another org, owned by them; a removed person is never left without a way in', async () => {
    const person = await signUp(platform.api);
    const created = await asPerson(platform.api, person, 'POST', '/api/orgs', {
      body: { name: 'Second Lab' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const org = created.json().data;
    expect(org).toMatchObject({
      name: 'Second Lab',
      role: 'owner',
      tracing: { enabled: false, requested_at: null },
    });
    const session = (await asPerson(platform.api, person, 'GET', '/api/auth/session')).json().data;
    expect(session.orgs.map((one: { id: string }) => one.id).sort()).toEqual([orgOf(person), org.id].sort());
    const unnamed = await asPerson(platform.api, person, 'POST', '/api/orgs', { body: { name: ' ' } });
    expect(unnamed.json().error).toMatchObject({ code: 'invalid_request', param: 'name' });
  });

  it('a link tells its holder the org, the email and the role, and whether it is still open', async () => {
    const owner = await signUp(platform.api, { org_name: 'Linked' });
    const email = uniqueEmail('holder');
    const { token } = await invite(owner, email, 'owner');
    const read = () =>
      platform.api.inject({ method: 'GET', url: `/api/invitations/${encodeURIComponent(token)}` });
    expect((await read()).json().data).toMatchObject({
      org: { id: orgOf(owner), name: 'Linked' },
      email: email.toLowerCase(),
      role: 'owner',
      status: 'open',
    });
    await signUp(platform.api, { email, invitation: token });
    expect((await read()).json().data.status).toBe('accepted');
    const forged = `${token.slice(0, -4)}AAAA`;
    const refused = await platform.api.inject({
      method: 'GET',
      url: `/api/invitations/${encodeURIComponent(forged)}`,
    });
    expect(refused.statusCode).toBe(404);
  });
});
