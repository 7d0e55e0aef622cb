import createClient from 'openapi-fetch';
import type { paths } from './openapi.generated.ts';

// The dashboard's one way to the API: openapi-fetch over the types generated from /openapi.json
// (infra/openapi-client-types.ts), on the page's own origin with the session cookie. Every call
// that changes something carries the session's CSRF token; a 401 from anything but the login
// routes means the session ended, and whoever listens (session.ts) sends the person to log in.

export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });

/** A refusal of the API, `{ error: { code, message, param? } }`, or a failure to reach it. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The field at fault, in the API's notation (`email`, `scopes[0]`). */
    readonly param?: string,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The failure an answer's status and body (parsed JSON, or text) say. */
export function failureOf(status: number, body: unknown): ApiFailure {
  const error = isRecord(body) ? body.error : undefined;
  if (isRecord(error) && typeof error.code === 'string' && typeof error.message === 'string')
    return new ApiFailure(
      status,
      error.code,
      error.message,
      typeof error.param === 'string' ? error.param : undefined,
    );
  return new ApiFailure(
    status,
    'unexpected_answer',
    `The API answered ${status} without saying why: try again in a moment.`,
  );
}

export const unreachable = () =>
  new ApiFailure(0, 'unreachable', 'The API could not be reached: check your connection and try again.');

/** What openapi-fetch resolves with. */
type Answer<D> = { data?: D; error?: unknown; response: Response };

/** A success's parsed body, or the `ApiFailure` of a refusal. */
export async function dataOf<D>(call: Promise<Answer<D>>): Promise<D> {
  let answer: Answer<D>;
  try {
    answer = await call;
  } catch {
    throw unreachable();
  }
  if (!answer.response.ok) throw failureOf(answer.response.status, answer.error);
  return answer.data as D;
}

let csrfToken: string | undefined;

/** The session's CSRF token, from the answer of sign-up, login or GET /api/auth/session. */
export function rememberCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

let sessionLost: () => void = () => {};
let sessionReplaced: () => void = () => {};

/** Called on a 401 from any route but those that log in (where a 401 is a wrong password). */
export function whenSessionLost(handler: () => void): void {
  sessionLost = handler;
}

/**
 * Called when the API refused the CSRF token: the cookie is another session's now (someone
 * logged in again in another tab), whose token and person this page has yet to read.
 */
export function whenSessionReplaced(handler: () => void): void {
  sessionReplaced = handler;
}

/** Answers 401 for a wrong password or no session, which is no session ending. */
const loginRoutes = new Set(['/api/auth/login', '/api/auth/signup', '/api/auth/session']);
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

api.use({
  onRequest({ request }) {
    if (!safeMethods.has(request.method) && csrfToken) request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
  async onResponse({ response, schemaPath }) {
    if (response.status === 401 && !loginRoutes.has(schemaPath)) sessionLost();
    if (response.status === 403) {
      const body: unknown = await response
        .clone()
        .json()
        .catch(() => undefined);
      if (failureOf(403, body).code === 'csrf_token_invalid') sessionReplaced();
    }
  },
});

/**
 * The org a call is for, for the routes that take a session in an org of the person's choosing
 * (billing, inference, traces, sandboxes): the `Orrery-Org` header.
 */
export const inOrgHeader = (orgId: string) => ({ headers: { 'Orrery-Org': orgId } });
