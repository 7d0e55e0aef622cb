import { describe, expect, it } from 'vitest';
import { ApiClient } from '../src/api-client.ts';
import { deviceGrantType, deviceLogin } from '../src/device-login.ts';
import { ApiRefused } from '../src/failures.ts';

// The polling loop of RFC 8628 against answers scripted in order: which waits it makes, what it
// sends, and how it ends.

const code = {
  device_code: 'device-1',
  user_code: 'WDJB-MJHT',
  verification_uri: 'http://api.test/device',
  verification_uri_complete: 'http://api.test/device?code=WDJB-MJHT',
  expires_in: 900,
  interval: 5,
};
const token = {
  access_token: 'orr_secret',
  token_type: 'Bearer',
  scope: 'traces:write',
  org_id: 'org_1',
  key_id: 'key_1',
};
const oauth = (error: string) => ({ status: 400, body: { error, error_description: `described ${error}` } });

function scripted(answers: { status: number; body: unknown }[]) {
  const requests: { url: string; body: string }[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    requests.push({ url, body: String(init.body) });
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    return new Response(JSON.stringify(next.body), { status: next.status });
  }) as typeof globalThis.fetch;
  const waits: number[] = [];
  const shown: string[] = [];
  const login = () =>
    deviceLogin({
      api: new ApiClient({ baseUrl: 'http://api.test', userAgent: 'test', fetch }),
      sleep: async (seconds) => {
        waits.push(seconds);
      },
      show: (shownCode) => shown.push(shownCode.user_code),
    });
  return { login, requests, waits, shown };
}

describe('deviceLogin', () => {
  it('shows the code, waits the interval before each poll, adds 5 seconds for each slow_down, and returns the token', async () => {
    const flow = scripted([
      { status: 200, body: code },
      oauth('authorization_pending'),
      oauth('slow_down'),
      oauth('authorization_pending'),
      oauth('slow_down'),
      { status: 200, body: token },
    ]);
    await expect(flow.login()).resolves.toEqual(token);
    expect(flow.shown).toEqual(['WDJB-MJHT']);
    expect(flow.waits).toEqual([5, 5, 10, 10, 15]);
    expect(flow.requests[0]!.url).toBe('http://api.test/api/auth/device/code');
    expect(flow.requests[1]!.url).toBe('http://api.test/api/auth/device/token');
    expect(Object.fromEntries(new URLSearchParams(flow.requests[1]!.body))).toEqual({
      grant_type: deviceGrantType,
      device_code: 'device-1',
      client_id: 'orrery-cli',
    });
  });

  it('waits 5 seconds when the server names no interval', async () => {
    const { interval: _, ...withoutInterval } = code;
    const flow = scripted([
      { status: 200, body: withoutInterval },
      { status: 200, body: token },
    ]);
    await flow.login();
    expect(flow.waits).toEqual([5]);
  });

  it.each(['access_denied', 'expired_token', 'invalid_grant'])(
    'stops on %s with the server’s description',
    async (error) => {
      const flow = scripted([{ status: 200, body: code }, oauth('authorization_pending'), oauth(error)]);
      const refusal = await flow.login().catch((thrown: unknown) => thrown);
      expect(refusal).toBeInstanceOf(ApiRefused);
      expect(refusal).toMatchObject({ code: error, message: `described ${error}`, exitCode: 1 });
    },
  );

  it('refuses a code request the API refused, with its message', async () => {
    const flow = scripted([
      { status: 429, body: { error: 'slow_down', error_description: 'Too many logins' } },
    ]);
    await expect(flow.login()).rejects.toMatchObject({ code: 'slow_down', message: 'Too many logins' });
    expect(flow.shown).toEqual([]);
  });
});
