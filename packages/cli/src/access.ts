import { ApiClient } from './api-client.ts';
import type { CredentialStore, StoredLogin } from './credentials.ts';
import { Failure, UsageFailure } from './failures.ts';

// Which API the tool talks to and with which key. The API: --api-url, else ORRERY_API_URL, else
// the API of the stored login, else the local platform. The key: ORRERY_API_KEY (no login needed,
// and it wins over a stored key), else the stored login's, but only for the API it was made
// against, so a key is never sent to another server because a flag changed.

export const defaultApiUrl = 'http://127.0.0.1:8080';

export type Env = Record<string, string | undefined>;

export interface AccessSettings {
  env: Env;
  store: CredentialStore;
  /** --api-url, already checked. */
  apiUrlFlag: string | undefined;
  userAgent: string;
}

export interface Access {
  apiUrl: string;
  /** Where the key comes from, to say so when it is refused. */
  key: { value: string; source: 'ORRERY_API_KEY' | 'login' } | undefined;
  stored: StoredLogin | undefined;
}

/** An http(s) URL without its trailing slash; the error names where it came from. */
export function apiUrlOf(text: string, from: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageFailure(`${from} is not a URL: '${text}' (for example ${defaultApiUrl}).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageFailure(`${from} must be an http or https URL, not '${text}'.`);
  if (url.search || url.hash) throw new UsageFailure(`${from} takes no query or fragment: '${text}'.`);
  return url.href.replace(/\/+$/, '');
}

export async function resolveAccess(settings: AccessSettings): Promise<Access> {
  const { env, store } = settings;
  const stored = await store.read();
  const apiUrl =
    settings.apiUrlFlag ??
    (env.ORRERY_API_URL ? apiUrlOf(env.ORRERY_API_URL, 'ORRERY_API_URL') : undefined) ??
    stored?.api_url ??
    defaultApiUrl;
  const fromEnv = env.ORRERY_API_KEY?.trim();
  const key = fromEnv
    ? { value: fromEnv, source: 'ORRERY_API_KEY' as const }
    : stored && stored.api_url === apiUrl
      ? { value: stored.key, source: 'login' as const }
      : undefined;
  return { apiUrl, key, stored };
}

/** A client carrying the key, or a Failure saying how to get one. */
export async function keyedClient(settings: AccessSettings): Promise<ApiClient> {
  const access = await resolveAccess(settings);
  if (!access.key) {
    const elsewhere =
      access.stored && access.stored.api_url !== access.apiUrl
        ? ` (the stored login is for ${access.stored.api_url})`
        : '';
    throw new Failure(
      `Not logged in to ${access.apiUrl}${elsewhere}: run \`orrery login\`, or set ORRERY_API_KEY.`,
    );
  }
  return new ApiClient({ baseUrl: access.apiUrl, key: access.key.value, userAgent: settings.userAgent });
}
