import { type Answer, type ApiClient, refusalOf } from './api-client.ts';
import { Failure } from './failures.ts';
import type { Sleep } from './sleep.ts';

// The command-line login, RFC 8628 (OAuth 2.0 device authorization grant), the client's half: ask
// for a code, show it, then poll the token endpoint every `interval` seconds until a person has
// approved (the key), denied (access_denied) or let it expire (expired_token). `slow_down` adds
// 5 seconds to the interval for this poll and every later one (§3.5).

export const clientId = 'orrery-cli';
export const deviceGrantType = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8628 §3.2: the interval when the server names none, and what `slow_down` adds (§3.5). */
const defaultIntervalSeconds = 5;
const slowDownSeconds = 5;

export interface DeviceCode {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval?: number;
}

export interface LoginToken {
  access_token: string;
  token_type: string;
  scope: string;
  org_id: string;
  key_id: string;
}

export interface DeviceLoginDeps {
  /** A client without a key: the two endpoints take none. */
  api: ApiClient;
  sleep: Sleep;
  /** Shows the person the code and where to approve it. */
  show: (code: DeviceCode) => void;
}

const isString = (value: unknown) => typeof value === 'string' && value !== '';

function deviceCodeOf(answer: Answer): DeviceCode {
  const body = answer.body as Partial<DeviceCode> | undefined;
  if (
    answer.status !== 200 ||
    !body ||
    !isString(body.device_code) ||
    !isString(body.user_code) ||
    !isString(body.verification_uri) ||
    typeof body.expires_in !== 'number'
  )
    throw answer.status === 200
      ? new Failure('The API answered the login request without a device code: check --api-url.')
      : refusalOf(answer);
  return body as DeviceCode;
}

function tokenOf(answer: Answer): LoginToken {
  const body = answer.body as Partial<LoginToken> | undefined;
  if (!body || !isString(body.access_token) || !isString(body.org_id) || !isString(body.key_id))
    throw new Failure('The API answered the login without a key: check --api-url.');
  return body as LoginToken;
}

export async function deviceLogin({ api, sleep, show }: DeviceLoginDeps): Promise<LoginToken> {
  const code = deviceCodeOf(
    await api.send('POST', '/api/auth/device/code', { json: { client_id: clientId } }),
  );
  show(code);
  let interval = code.interval ?? defaultIntervalSeconds;
  for (;;) {
    await sleep(interval);
    const answer = await api.send('POST', '/api/auth/device/token', {
      form: { grant_type: deviceGrantType, device_code: code.device_code, client_id: clientId },
    });
    if (answer.status === 200) return tokenOf(answer);
    const refusal = refusalOf(answer);
    if (refusal.code === 'authorization_pending') continue;
    if (refusal.code === 'slow_down') {
      interval += slowDownSeconds;
      continue;
    }
    // access_denied, expired_token, invalid_grant, …: the server's description says what to do.
    throw refusal;
  }
}
