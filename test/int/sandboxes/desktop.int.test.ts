import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { addMember, createApiKey, revokeApiKey } from '../../../api/admin/commands.ts';
import { hashApiKey } from '../../../api/auth/api-keys.ts';
import { regionOutputSize } from '../../../domain/sandboxes/screen-geometry.ts';
import { createDesktop } from '../../../sandbox-runtime/desktop/index.ts';
import { eventually } from '../../harness/platform.ts';
import { openScreen } from '../../harness/rfb-client.ts';
import { asPerson, signUp } from '../people/given.ts';
import { givenSandboxApi, prepareTimeoutMs, type SandboxApi } from './given.ts';

// The desktop routes and the live screen on a real desktop (sandbox-runtime/desktop): start
// resolves once the browser is ready; input, screenshots and accessibility act on it; the screen
// carries RFB both ways, drops a `view` token's input, closes cleanly when the token expires or
// the desktop stops, and says which when its minting key is revoked or its person removed. A
// member's dashboard session starts and stops it too (the sandbox's page), with the session's
// CSRF token; a control token still does.

let api: SandboxApi;
let id: string;
let base: string;
beforeAll(async () => {
  api = await givenSandboxApi((runtime) => ({ desktop: createDesktop(runtime) }));
  id = (await api.call('POST', '/api/sandboxes', { body: {} })).json().data.id;
  base = api.baseUrl.replace(/^http/, 'ws');
}, prepareTimeoutMs);
afterAll(() => api.cleanup());

const desktop = (body: Record<string, unknown>) => api.call('POST', `/api/sandboxes/${id}/desktop`, { body });
const input = (body: Record<string, unknown>, bearer?: string) =>
  api.call('POST', `/api/sandboxes/${id}/desktop/input`, { body, ...(bearer ? { bearer } : {}) });
const token = async (abilities: string[], expiresIn = 900) =>
  (
    await api.call('POST', `/api/sandboxes/${id}/tokens`, { body: { abilities, expires_in: expiresIn } })
  ).json().data.token as string;
const cursor = async () => (await input({ action: 'cursor' })).json().data as { x: number; y: number };

describe('the desktop', () => {
  it('starts at a resolution and answers its status once the browser is ready', async () => {
    const started = await desktop({ action: 'start', resolution: '1024x768' });
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json().data).toMatchObject({
      running: true,
      size: '1024x768',
      display: expect.any(String),
    });
    expect(started.json().data.browser).toMatch(/chrom/i);
    const status = await api.call('GET', `/api/sandboxes/${id}/desktop`, { bearer: await token(['view']) });
    expect(status.json().data).toEqual(started.json().data);
    expect((await api.call('GET', `/api/sandboxes/${id}`)).json().data.desktop).toEqual(started.json().data);
    // The same resolution again answers as it is; another one is refused while it runs.
    expect((await desktop({ action: 'start' })).json().data.size).toBe('1024x768');
    const other = await desktop({ action: 'start', resolution: '800x600' });
    expect(other.json().error).toMatchObject({ code: 'invalid_request', param: 'resolution' });
  }, 120_000);

  it('moves the pointer and reads it back; a position off the screen is 422 on its field', async () => {
    expect((await input({ action: 'move', x: 100, y: 200 })).json().data).toEqual({ done: 'move' });
    expect(await cursor()).toEqual({ x: 100, y: 200 });
    const off = await input({ action: 'move', x: 1024, y: 0 });
    expect(off.statusCode).toBe(422);
    expect(off.json().error.param).toBe('x');
  });

  it('answers a screenshot as PNG with its size in headers, whole or a region scaled up', async () => {
    const whole = await api.call('GET', `/api/sandboxes/${id}/desktop/screenshot`);
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toBe('image/png');
    expect([whole.headers['x-image-width'], whole.headers['x-image-height']]).toEqual(['1024', '768']);
    expect(whole.rawPayload.subarray(1, 4).toString()).toBe('PNG');
    const region = [0, 0, 200, 100] as const;
    const part = await api.call('GET', `/api/sandboxes/${id}/desktop/screenshot?region=${region.join(',')}`);
    const expected = regionOutputSize({ width: 1024, height: 768 }, region);
    expect([Number(part.headers['x-image-width']), Number(part.headers['x-image-height'])]).toEqual([
      expected.width,
      expected.height,
    ]);
    const outside = await api.call('GET', `/api/sandboxes/${id}/desktop/screenshot?region=0,0,2000,100`);
    expect(outside.json().error).toMatchObject({ code: 'invalid_request', param: 'region' });
  });

  it('reads the accessibility tree of the browser', async () => {
    const tree = await api.call('GET', `/api/sandboxes/${id}/desktop/accessibility?depth=3`);
    expect(tree.statusCode, tree.body).toBe(200);
    expect(tree.json().data).toMatchObject({
      ref: expect.stringMatching(/^e\d+$/),
      role: expect.any(String),
    });
    const read = await api.call('POST', `/api/sandboxes/${id}/desktop/accessibility`, {
      body: { ref: tree.json().data.ref, action: 'read' },
    });
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().data).toMatchObject({ ref: tree.json().data.ref, action: 'read', ok: true });
  });
});

describe('the screen', () => {
  const url = (bearer: string) => `${base}/api/sandboxes/${id}/screen?token=${bearer}`;

  it('carries RFB; a control token moves the pointer, a view token’s input is dropped', async () => {
    const control = await openScreen(url(await token(['control'])));
    expect(control.init?.width).toBe(1024);
    control.pointer(300, 400);
    await expect.poll(cursor, { timeout: 5000 }).toEqual({ x: 300, y: 400 });
    control.close();

    const view = await openScreen(url(await token(['view'])));
    expect(view.init?.height).toBe(768);
    view.pointer(50, 60);
    // x11vnc (unthreaded, as the desktop starts it) reads one connection's messages in order and
    // hands a pointer event to the X server as it reads it: once it answers an update asked after
    // the pointer event, a pointer event the API had let through would have moved the cursor.
    await view.pixel(0, 0);
    expect(await cursor()).toEqual({ x: 300, y: 400 });
    // The view connection stays open and keeps receiving the screen.
    expect(view.ws.readyState).toBe(WebSocket.OPEN);
    view.close();
  }, 60_000);

  it('closes cleanly when the token expires', async () => {
    const short = await token(['view'], 60);
    api.clock.advance(58);
    try {
      const screen = await openScreen(url(short));
      const closed = await screen.closed;
      expect(closed).toEqual({ code: 1000, reason: 'token expired' });
    } finally {
      api.clock.advance(-58);
    }
  }, 30_000);

  it('closes an open screen within about a second of its minting key being revoked', async () => {
    const minter = await createApiKey(api.platform.admin, api.orgId, ['sandboxes:write'], 'screen minter');
    await eventually(async () => api.platform.directory.principal(hashApiKey(minter.key)), 5_000, 'the key');
    const minted = await api.call('POST', `/api/sandboxes/${id}/tokens`, {
      body: { abilities: ['view'] },
      bearer: minter.key,
    });
    const screen = await openScreen(url(minted.json().data.token));
    expect(screen.ws.readyState).toBe(WebSocket.OPEN);
    await revokeApiKey(api.platform.admin, api.orgId, minter.keyId);
    await eventually(
      async () => (api.platform.directory.principal(hashApiKey(minter.key)) ? undefined : true),
      5_000,
      'the revocation',
    );
    const revokedAt = Date.now();
    expect(await screen.closed).toEqual({ code: 1008, reason: 'token revoked' });
    expect(Date.now() - revokedAt).toBeLessThan(2_000);
  }, 30_000);

  it('closes an open screen within about a second of its minting person being removed from the org, saying so', async () => {
    // Two people with orgs of their own, added by an operator to the file's org: an owner, and a
    // member whose dashboard session mints the token (the org named, as in two orgs it must be).
    const owner = await signUp(api.platform.api, { name: 'Olu' });
    await addMember(api.platform.admin, api.orgId, owner.email, 'owner');
    const person = await signUp(api.platform.api, { name: 'Grace' });
    await addMember(api.platform.admin, api.orgId, person.email, 'member');
    await eventually(
      async () => api.platform.directory.org(api.orgId)?.members[person.personId],
      5_000,
      'the member',
    );
    const minted = await asPerson(api.platform.api, person, 'POST', `/api/sandboxes/${id}/tokens`, {
      body: { abilities: ['view'] },
      headers: { 'orrery-org': api.orgId },
    });
    expect(minted.statusCode, minted.body).toBe(201);
    const screen = await openScreen(url(minted.json().data.token));
    expect(screen.ws.readyState).toBe(WebSocket.OPEN);

    // The removing request answers once this API's directory has the event.
    const removed = await asPerson(
      api.platform.api,
      owner,
      'DELETE',
      `/api/orgs/${api.orgId}/members/${person.personId}`,
    );
    expect(removed.statusCode, removed.body).toBe(204);
    const removedAt = Date.now();
    expect(await screen.closed).toEqual({ code: 1008, reason: 'removed from the org' });
    expect(Date.now() - removedAt).toBeLessThan(2_000);
  }, 30_000);

  it('closes cleanly when the desktop stops; the desktop then reports not running', async () => {
    const screen = await openScreen(url(await token(['view'])));
    const stopped = await desktop({ action: 'stop' });
    expect(stopped.json().data).toEqual({ running: false });
    expect(await screen.closed).toEqual({ code: 1000, reason: 'desktop stopped' });
    expect((await input({ action: 'cursor' })).json().error.code).toBe('no_desktop');
  }, 60_000);
});

describe('the desktop from a dashboard session', () => {
  it("starts and stops with a member's session and its CSRF token, never without it; a control token still may", async () => {
    const person = await signUp(api.platform.api);
    await addMember(api.platform.admin, api.orgId, person.email, 'member');
    await eventually(
      async () => api.platform.directory.org(api.orgId)?.members[person.personId],
      5_000,
      'the member',
    );
    const path = `/api/sandboxes/${id}/desktop`;
    const headers = { 'orrery-org': api.orgId };
    const forged = await asPerson(api.platform.api, person, 'POST', path, {
      body: { action: 'start' },
      headers,
      csrf: false,
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.json().error.code).toBe('csrf_token_invalid');

    const started = await asPerson(api.platform.api, person, 'POST', path, {
      body: { action: 'start' },
      headers,
    });
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json().data).toMatchObject({ running: true });
    expect((await api.call('GET', `/api/sandboxes/${id}`)).json().data.desktop.running).toBe(true);

    const stopped = await asPerson(api.platform.api, person, 'POST', path, {
      body: { action: 'stop' },
      headers,
    });
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(stopped.json().data).toEqual({ running: false });

    // A sandbox token in Authorization is still judged as one: `control` starts, `view` may not stop.
    const control = await api.call('POST', path, {
      bearer: await token(['control']),
      body: { action: 'start' },
    });
    expect(control.statusCode, control.body).toBe(200);
    const view = await api.call('POST', path, { bearer: await token(['view']), body: { action: 'stop' } });
    expect(view.json().error.code).toBe('insufficient_ability');
    expect((await desktop({ action: 'stop' })).json().data).toEqual({ running: false });
  }, 120_000);
});
