import { randomInt, randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

// A person at the dashboard, as a browser would be: the session cookie the API set, and the
// session's CSRF token sent back on every request that changes something.

export interface LoggedIn {
  personId: string;
  email: string;
  cookie: string;
  csrf: string;
  orgs: { id: string; name: string; role: string }[];
}

export const uniqueEmail = (who: string) => `${who}-${randomUUID().slice(0, 8)}@Example.com`;

/**
 * A client address (10.0.0.0/8, drawn) for a test's limited requests. Attempts are counted in the
 * stack's Postgres for every process (api/people/attempt-limits.ts), so requests all from
 * 127.0.0.1 would share one per-address count with every other test and run of the last minute.
 */
export const anAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
export const password = 'correct horse battery staple';

/** The `name=value` of the session cookie an answer set, or undefined. */
export function sessionCookieOf(answer: LightMyRequestResponse): string | undefined {
  const cookie = answer.cookies.find((candidate) => candidate.name === 'orrery_session');
  return cookie && `${cookie.name}=${cookie.value}`;
}

export function loggedIn(answer: LightMyRequestResponse): LoggedIn {
  const cookie = sessionCookieOf(answer);
  if (!cookie || answer.statusCode >= 300)
    throw new Error(`not logged in: ${answer.statusCode} ${answer.body}`);
  const { person, orgs, csrf_token } = answer.json().data;
  return { personId: person.id, email: person.email, cookie, csrf: csrf_token, orgs };
}

export async function signUp(
  api: FastifyInstance,
  body: { email?: string; name?: string; password?: string; org_name?: string; invitation?: string } = {},
): Promise<LoggedIn> {
  const answer = await api.inject({
    method: 'POST',
    url: '/api/auth/signup',
    payload: { email: uniqueEmail('ada'), name: 'Ada', password, ...body },
  });
  return loggedIn(answer);
}

/** A request as the person's browser sends it: cookie, CSRF token, the org header if given. */
export function asPerson(
  api: FastifyInstance,
  person: Pick<LoggedIn, 'cookie' | 'csrf'>,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  options: { body?: unknown; headers?: Record<string, string>; csrf?: boolean } = {},
): Promise<LightMyRequestResponse> {
  return api.inject({
    method,
    url,
    headers: {
      cookie: person.cookie,
      ...(options.csrf === false ? {} : { 'x-csrf-token': person.csrf }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { payload: options.body as object }),
  });
}
