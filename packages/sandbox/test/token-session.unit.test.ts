import { describe, expect, it } from 'vitest';
import type { TokenGrant } from '../src/api-types.js';
import { Client } from '../src/client.js';
import type { Fetch } from '../src/connection.js';
import type { Desktop } from '../src/desktop.js';
import { ApiError } from '../src/errors.js';
import { NotSent, recordingFetch } from './recording-fetch.js';

// `Client.fromToken` (spec 002): a sandbox token's desktop and screen URL, for a browser.

const grant = (ability: 'view' | 'control'): TokenGrant => ({
  token: 'ost_payload.signature',
  sandbox: 'sbx_1',
  abilities: [ability],
  origins: ['https://app.example.com'],
  expires_at: '2026-11-24T18:00:00.000Z',
});

const controlMethods: [string, (desktop: Desktop) => Promise<unknown>][] = [
  ['start', (d) => d.start()],
  ['stop', (d) => d.stop()],
  ['click', (d) => d.click({ x: 1, y: 1 })],
  ['move', (d) => d.move({ x: 1, y: 1 })],
  ['mouseDown', (d) => d.mouseDown()],
  ['mouseUp', (d) => d.mouseUp()],
  ['drag', (d) => d.drag({ from: { x: 1, y: 1 }, to: { x: 2, y: 2 } })],
  ['scroll', (d) => d.scroll({ direction: 'down' })],
  ['type', (d) => d.type('hello')],
  ['key', (d) => d.key('Return')],
  ['hold', (d) => d.hold('shift', 1)],
  ['cursor', (d) => d.cursor()],
  ['open', (d) => d.open('https://example.com')],
  ['accessibility.tree', (d) => d.accessibility.tree()],
  ['accessibility.act', (d) => d.accessibility.act({ ref: 'e1', action: 'press' })],
];

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('a view grant', () => {
  it.each(controlMethods)('refuses %s with insufficient_ability, without a request', async (method, call) => {
    const { fetch, requests } = recordingFetch();
    const { desktop } = Client.fromToken(grant('view'), { fetch });
    const refusal = await failure(call(desktop));
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ code: 'insufficient_ability', status: 403, param: undefined });
    expect((refusal as ApiError).message).toContain(`\`desktop.${method}\``);
    expect(requests).toEqual([]);
  });

  it.each([
    ['status', (d: Desktop) => d.status(), '/api/sandboxes/sbx_1/desktop'],
    [
      'screenshot',
      (d: Desktop) => d.screenshot({ region: [0, 0, 10, 10] }),
      '/api/sandboxes/sbx_1/desktop/screenshot?region=0%2C0%2C10%2C10',
    ],
  ])('sends %s, with the token', async (_method, call, path) => {
    const { fetch, requests } = recordingFetch();
    const { desktop } = Client.fromToken(grant('view'), { fetch, baseUrl: 'https://api.example.com' });
    expect(await failure(call(desktop))).toBeInstanceOf(NotSent);
    expect(requests.map((r) => [r.url, r.headers.get('authorization')])).toEqual([
      [`https://api.example.com${path}`, 'Bearer ost_payload.signature'],
    ]);
  });
});

describe('a control grant, or a token string (whose ability only the API knows)', () => {
  it.each(controlMethods)('sends %s', async (_method, call) => {
    for (const session of [
      (fetch: Fetch) => Client.fromToken(grant('control'), { fetch }),
      (fetch: Fetch) => Client.fromToken('ost_x.y', { sandbox: 'sbx_1', fetch }),
    ]) {
      const { fetch, requests } = recordingFetch();
      expect(await failure(call(session(fetch).desktop))).toBeInstanceOf(NotSent);
      expect(requests).toHaveLength(1);
      expect(requests[0]?.url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/api\/sandboxes\/sbx_1\/desktop/);
    }
  });
});

describe('the session', () => {
  it('returns the token, sandbox, baseUrl and the screen URL with the token', () => {
    const session = Client.fromToken(grant('view'), { baseUrl: 'https://api.example.com/' });
    expect({ ...session, desktop: undefined }).toEqual({
      desktop: undefined,
      token: 'ost_payload.signature',
      sandbox: 'sbx_1',
      baseUrl: 'https://api.example.com',
      screenUrl: 'wss://api.example.com/api/sandboxes/sbx_1/screen?token=ost_payload.signature',
    });
  });

  it.each([
    [undefined, 'ws://127.0.0.1:8080/api/sandboxes/my-box/screen?token=a%2Bb%3Dc'],
    [
      'http://localhost:3000/orrery',
      'ws://localhost:3000/orrery/api/sandboxes/my-box/screen?token=a%2Bb%3Dc',
    ],
    ['HTTPS://api.example.com', 'wss://api.example.com/api/sandboxes/my-box/screen?token=a%2Bb%3Dc'],
  ])('from %s: %s', (baseUrl, screenUrl) => {
    expect(Client.fromToken('a+b=c', { sandbox: 'my-box', baseUrl }).screenUrl).toBe(screenUrl);
  });

  it.each([
    ['a token string without a sandbox', () => Client.fromToken('ost_x.y'), 'sandbox', /^Missing `sandbox`/],
    ['an empty token', () => Client.fromToken('', { sandbox: 'sbx_1' }), 'token', /^Missing `token`/],
    [
      "a grant with another sandbox than the grant's",
      () => Client.fromToken(grant('view'), { sandbox: 'sbx_2' }),
      'sandbox',
      /^Invalid `sandbox`: send the grant's own sandbox, `sbx_1`/,
    ],
  ])('refuses %s', (_name, make, param, message) => {
    expect(make).toThrow(ApiError);
    expect(make).toThrow(message);
    try {
      make();
    } catch (error) {
      expect(error).toMatchObject({ code: 'invalid_request', status: 422, param });
    }
  });
});
