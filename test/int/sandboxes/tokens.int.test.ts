import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { addMember, createApiKey, revokeApiKey } from '../../../api/admin/commands.ts';
import { hashApiKey } from '../../../api/auth/api-keys.ts';
import { eventually } from '../../harness/platform.ts';
import { asPerson, signUp } from '../people/given.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from './given.ts';

// Sandbox tokens through HTTP (spec, "Authentication" 2 to 8; "Sandbox token"): minted with an
// API key or a dashboard session only, they open only the desktop and screen routes of their own
// sandbox, with the ability they hold, from the origins they list, until they expire, their key is
// revoked, their person leaves the org, or the sandbox has secrets. Desktop routes answer `no_desktop` here (none is started): a token that
// gets that far has passed every check.

let api: SandboxApi;
let sandbox: { id: string; name: string };
let other: { id: string };
beforeAll(async () => {
  api = await givenSandboxApi();
  sandbox = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data;
  other = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data;
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

const mint = async (body: Record<string, unknown>, id = sandbox.id, bearer?: string) => {
  const answer = await api.call('POST', `/api/sandboxes/${id}/tokens`, {
    body,
    ...(bearer ? { bearer } : {}),
  });
  return answer;
};
const token = async (body: Record<string, unknown> = { abilities: ['control'] }, id = sandbox.id) => {
  const answer = await mint(body, id);
  expect(answer.statusCode, answer.body).toBe(201);
  return answer.json().data.token as string;
};
const status = (bearer: string, headers: Record<string, string> = {}, id = sandbox.id) =>
  api.call('GET', `/api/sandboxes/${id}/desktop`, { bearer, headers });
const click = (bearer: string, id = sandbox.id) =>
  api.call('POST', `/api/sandboxes/${id}/desktop/input`, { bearer, body: { action: 'click', x: 1, y: 1 } });

describe('minting', () => {
  it('answers 201 with the token, the sandbox, one ability, normalized origins and the expiry', async () => {
    const before = api.clock.now().getTime();
    const answer = await mint({
      abilities: ['control'],
      origins: ['https://App.Example.com/', 'https://app.example.com', 'http://localhost:3000'],
    });
    expect(answer.statusCode).toBe(201);
    const grant = answer.json().data;
    expect(grant).toMatchObject({
      sandbox: sandbox.id,
      abilities: ['control'],
      origins: ['https://app.example.com', 'http://localhost:3000'],
    });
    expect(grant.token).toMatch(/^ost_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const expiresIn = new Date(grant.expires_at).getTime() - before;
    expect(expiresIn).toBeGreaterThanOrEqual(900_000);
    expect(expiresIn).toBeLessThan(905_000);
    // By name too; 60 and 3600 seconds are the lifetime's edges.
    expect((await mint({ abilities: ['view'], expires_in: 60 }, sandbox.name)).statusCode).toBe(201);
    expect((await mint({ abilities: ['view'], expires_in: 3600 })).statusCode).toBe(201);
  });

  it.each([
    [{}, 'abilities'],
    [{ abilities: [] }, 'abilities'],
    [{ abilities: ['view', 'control'] }, 'abilities'],
    [{ abilities: ['control', 'control'] }, 'abilities'],
    [{ abilities: ['admin'] }, 'abilities[0]'],
    [{ abilities: ['view'], expires_in: 59 }, 'expires_in'],
    [{ abilities: ['view'], expires_in: 3601 }, 'expires_in'],
    [{ abilities: ['view'], origins: ['https://a.com/path'] }, 'origins[0]'],
    [{ abilities: ['view'], origins: Array.from({ length: 11 }, (_, i) => `https://a${i}.com`) }, 'origins'],
  ])('refuses %j with 422 naming `%s`', async (body, param) => {
    const answer = await mint(body);
    expect(answer.statusCode).toBe(422);
    expect(answer.json().error).toMatchObject({ code: 'invalid_request', param });
  });

  it('is refused with a sandbox token (401), and for a sandbox of another org (404)', async () => {
    const withToken = await mint({ abilities: ['view'] }, sandbox.id, await token());
    expect(withToken.statusCode).toBe(401);
    expect(withToken.json().error.code).toBe('unauthorized');
    const stranger = await api.newOrg('Token stranger');
    expect((await mint({ abilities: ['view'] }, sandbox.id, stranger.key)).statusCode).toBe(404);
  });
});

describe('what a token opens', () => {
  it('opens the desktop routes of its sandbox: view for status, control for input', async () => {
    const view = await token({ abilities: ['view'] });
    expect((await status(view)).json()).toEqual({ data: { running: false } });
    const control = await token({ abilities: ['control'] });
    expect((await status(control)).statusCode).toBe(200);
    const clicked = await click(control);
    expect(clicked.statusCode).toBe(409);
    expect(clicked.json().error.code).toBe('no_desktop');
  });

  it('is refused with 401 on every route that is not the desktop or the screen', async () => {
    const control = await token();
    const id = sandbox.id;
    const routes = [
      ['POST', '/api/sandboxes', {}],
      ['GET', '/api/sandboxes', undefined],
      ['GET', `/api/sandboxes/${id}`, undefined],
      ['PATCH', `/api/sandboxes/${id}`, { metadata: {} }],
      ['POST', `/api/sandboxes/${id}/exec`, { command: 'true' }],
      ['GET', `/api/sandboxes/${id}/files?path=/etc/hostname`, undefined],
      ['PUT', `/api/sandboxes/${id}/files?path=/root/x`, Buffer.from('x')],
      ['POST', `/api/sandboxes/${id}/stop`, undefined],
      ['POST', `/api/sandboxes/${id}/resume`, undefined],
      ['POST', `/api/sandboxes/${id}/fork`, undefined],
      ['DELETE', `/api/sandboxes/${id}`, undefined],
      ['POST', `/api/admin/sandboxes/${id}/secrets`, undefined],
      ['GET', '/api/me', undefined],
    ] as const;
    for (const [method, url, body] of routes) {
      const answer = await api.call(method, url, { bearer: control, body });
      expect([url, answer.statusCode]).toEqual([url, 401]);
      expect(answer.json().error.code).toBe('unauthorized');
    }
    expect((await api.call('GET', `/api/sandboxes/${id}`)).json().data.status).toBe('running');
  });

  it('is refused with 401 on another sandbox, by id or by name', async () => {
    const control = await token();
    for (const id of [other.id, 'no-such-sandbox']) {
      const answer = await status(control, {}, id);
      expect(answer.statusCode).toBe(401);
      expect(answer.json().error.message).toMatch(/another sandbox/);
    }
  });

  it('a view token on a control route: 403 insufficient_ability', async () => {
    const view = await token({ abilities: ['view'] });
    for (const [method, path, body] of [
      ['POST', 'desktop', { action: 'start' }],
      ['POST', 'desktop/input', { action: 'cursor' }],
      ['GET', 'desktop/accessibility', undefined],
      ['POST', 'desktop/accessibility', { ref: 'e1', action: 'press' }],
    ] as const) {
      const answer = await api.call(method, `/api/sandboxes/${sandbox.id}/${path}`, { bearer: view, body });
      expect([path, answer.statusCode, answer.json().error.code]).toEqual([
        path,
        403,
        'insufficient_ability',
      ]);
    }
  });

  it('an altered or foreign token: 401', async () => {
    const control = await token();
    const altered = `${control.slice(0, 10)}${control[10] === 'A' ? 'B' : 'A'}${control.slice(11)}`;
    expect((await status(altered)).statusCode).toBe(401);
    expect((await status('ost_forged.signature')).statusCode).toBe(401);
  });
});

describe('origins', () => {
  it('a browser origin must be listed; a token without origins refuses every browser; servers send none', async () => {
    const open = await token({ abilities: ['view'] });
    expect((await status(open)).statusCode).toBe(200);
    const refused = await status(open, { origin: 'https://app.example.com' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('origin_refused');

    const listed = await token({ abilities: ['view'], origins: ['https://app.example.com'] });
    expect((await status(listed, { origin: 'https://app.example.com' })).statusCode).toBe(200);
    expect((await status(listed, { origin: 'https://APP.example.com:443' })).statusCode).toBe(200);
    expect((await status(listed, { origin: 'https://evil.example.com' })).json().error.code).toBe(
      'origin_refused',
    );
    expect((await status(listed, { origin: 'http://app.example.com' })).json().error.code).toBe(
      'origin_refused',
    );
  });
});

describe('when a token stops working', () => {
  it('on expiry: 401', async () => {
    const short = await token({ abilities: ['view'], expires_in: 60 });
    expect((await status(short)).statusCode).toBe(200);
    api.clock.advance(61);
    try {
      const expired = await status(short);
      expect(expired.statusCode).toBe(401);
      expect(expired.json().error.message).toMatch(/expired/);
    } finally {
      api.clock.advance(-61);
    }
  });

  it('when the key that minted it is revoked: 401', async () => {
    const minter = await createApiKey(api.platform.admin, api.orgId, ['sandboxes:write'], 'minter');
    await eventually(async () => api.platform.directory.principal(hashApiKey(minter.key)), 5_000, 'the key');
    const minted = (await mint({ abilities: ['view'] }, sandbox.id, minter.key)).json().data.token;
    expect((await status(minted)).statusCode).toBe(200);
    await revokeApiKey(api.platform.admin, api.orgId, minter.keyId);
    await eventually(
      async () => ((await status(minted)).statusCode === 401 ? true : undefined),
      5_000,
      '401',
    );
    expect((await status(minted)).json().error.message).toMatch(/revoked/);
  });

  it('minted in a dashboard session, when its person leaves the org: 401 within a second', async () => {
    // A person with an org of their own, added by an operator to the file's org: two orgs, so the
    // session names the one it acts in.
    const person = await signUp(api.platform.api);
    await addMember(api.platform.admin, api.orgId, person.email, 'member');
    await eventually(
      async () => api.platform.directory.org(api.orgId)?.members[person.personId],
      5_000,
      'the member',
    );
    const path = `/api/sandboxes/${sandbox.id}/tokens`;
    const body = { abilities: ['view'] };
    const unnamed = await asPerson(api.platform.api, person, 'POST', path, { body });
    expect(unnamed.json().error).toMatchObject({ code: 'invalid_request', param: 'Orrery-Org' });
    const headers = { 'orrery-org': api.orgId };
    const forged = await asPerson(api.platform.api, person, 'POST', path, { body, headers, csrf: false });
    expect(forged.json().error.code).toBe('csrf_token_invalid');
    const minted = await asPerson(api.platform.api, person, 'POST', path, { body, headers });
    expect(minted.statusCode, minted.body).toBe(201);
    const sessionToken = minted.json().data.token as string;
    expect((await status(sessionToken)).statusCode).toBe(200);

    const left = await asPerson(
      api.platform.api,
      person,
      'DELETE',
      `/api/orgs/${api.orgId}/members/${person.personId}`,
    );
    expect(left.statusCode).toBe(204);
    const leftAt = Date.now();
    await eventually(
      async () => ((await status(sessionToken)).statusCode === 401 ? true : undefined),
      1_000,
      '401',
    );
    expect(Date.now() - leftAt).toBeLessThan(1_000);
    expect((await status(sessionToken)).json().error.message).toMatch(/left the org/);
  });

  it('when the sandbox has secrets: 409 sandbox_has_secrets, and no new token is minted', async () => {
    const secretive = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data;
    const before = await token({ abilities: ['control'] }, secretive.id);
    const marked = await api.call('POST', `/api/admin/sandboxes/${secretive.id}/secrets`);
    expect(marked.json().data.has_secrets).toBe(true);
    const refused = await status(before, {}, secretive.id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('sandbox_has_secrets');
    const minting = await mint({ abilities: ['view'] }, secretive.id);
    expect(minting.statusCode).toBe(409);
    expect(minting.json().error.code).toBe('sandbox_has_secrets');
    // The key still works; a fork keeps the secrets, so its tokens are refused too.
    expect((await api.call('GET', `/api/sandboxes/${secretive.id}/desktop`)).statusCode).toBe(200);
    const copy = (await api.call('POST', `/api/sandboxes/${secretive.id}/fork`)).json().data;
    expect(copy.has_secrets).toBe(true);
    expect((await mint({ abilities: ['view'] }, copy.id)).json().error.code).toBe('sandbox_has_secrets');
  });
});

describe('the screen', () => {
  let base: string;
  beforeAll(async () => {
    base = api.baseUrl.replace(/^http/, 'ws');
  });

  /** The HTTP answer a WebSocket handshake got instead of 101. */
  const refusal = (url: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: { error: { code: string } } }>((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      ws.on('open', () => reject(new Error('the screen opened')));
      ws.on('error', () => undefined);
      ws.on('unexpected-response', (_request, response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      });
    });

  it('checks the token from the query string before it upgrades', async () => {
    const view = await token({ abilities: ['view'], origins: ['https://app.example.com'] });
    const screen = `${base}/api/sandboxes/${sandbox.id}/screen`;
    const noDesktop = await refusal(`${screen}?token=${view}`, { origin: 'https://app.example.com' });
    expect(noDesktop).toMatchObject({ status: 409, body: { error: { code: 'no_desktop' } } });
    const wrongOrigin = await refusal(`${screen}?token=${view}`, { origin: 'https://evil.example.com' });
    expect(wrongOrigin).toMatchObject({ status: 403, body: { error: { code: 'origin_refused' } } });
    const elsewhere = await refusal(`${base}/api/sandboxes/${other.id}/screen?token=${view}`);
    expect(elsewhere).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
    expect((await refusal(screen)).status).toBe(401);
    // A key is taken from the header only, never from the URL.
    expect((await refusal(`${screen}?token=${api.key}`)).status).toBe(401);
    expect((await refusal(screen, { authorization: `Bearer ${api.key}` })).status).toBe(409);
  });

  it('answers a plain GET with 426: the screen is a WebSocket', async () => {
    const view = await token({ abilities: ['view'] });
    const answer = await api.call('GET', `/api/sandboxes/${sandbox.id}/screen?token=${view}`, {
      bearer: null,
    });
    expect(answer.statusCode).toBe(426);
  });
});
