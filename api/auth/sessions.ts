import { hash, randomBytes } from 'node:crypto';
import cookie from '@fastify/cookie';
import Tokens from '@fastify/csrf';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { isSessionLive, isTouchDue, sessionExpiry } from '../../domain/people/sessions.ts';
import type { PgPool } from '../../platform/postgres.ts';
import { deleteSession, findSession, insertSession, touchSession } from '../../stores/sessions.ts';
import { ApiError } from '../errors.ts';

// Dashboard sessions: a random secret in an httpOnly, SameSite=Lax cookie; Postgres keeps its
// SHA-256 (stores/sessions.ts), so logging out ends it everywhere at once. A request that changes
// something with the cookie must also carry a CSRF token made from the session's own secret
// (OWASP's synchronizer token, @fastify/csrf), which a cross-site page cannot read.

export const sessionCookie = 'orrery_session';
export const csrfHeader = 'x-csrf-token';

/** Who a session belongs to, once the cookie was found live. */
export interface SessionPerson {
  personId: string;
  sessionHash: string;
  csrfSecret: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * An onRequest hook: 401 without a live session; for any method but GET and HEAD, 403
     * without the session's CSRF token. Sets `person`.
     */
    requireSession(): onRequestHookHandler;
    sessions: Sessions;
  }
  interface FastifyRequest {
    person?: SessionPerson;
  }
}

const csrfTokens = Tokens();
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

const hashSecret = (secret: string) => hash('sha256', secret, 'hex');

export const notLoggedIn = () =>
  new ApiError('unauthorized', 401, 'Log in first (POST /api/auth/login), then send the session cookie.');

export const sessionEnded = () =>
  new ApiError('session_expired', 401, 'Your session has ended: log in again.');

export const csrfRefused = () =>
  new ApiError(
    'csrf_token_invalid',
    403,
    `A request that changes something must carry the session's CSRF token as the ${csrfHeader} header: read it from GET /api/auth/session.`,
  );

export class Sessions {
  constructor(
    private readonly pool: PgPool,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Starts a session for the person and sets its cookie; answers the CSRF token for it. */
  async start(request: FastifyRequest, reply: FastifyReply, personId: string): Promise<string> {
    const secret = randomBytes(32).toString('base64url');
    const now = this.now();
    const csrfSecret = csrfTokens.secretSync();
    const expiresAt = sessionExpiry(now, now);
    await insertSession(this.pool, hashSecret(secret), {
      personId,
      csrfSecret,
      createdAt: now,
      lastSeenAt: now,
      expiresAt,
    });
    reply.setCookie(sessionCookie, secret, {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: request.protocol === 'https',
      expires: expiresAt,
    });
    return csrfTokens.create(csrfSecret);
  }

  /** The request's live session, or why there is none (no cookie, or one that ended). */
  async read(request: FastifyRequest): Promise<SessionPerson | 'none' | 'ended'> {
    const secret = request.cookies[sessionCookie];
    if (!secret) return 'none';
    const sessionHash = hashSecret(secret);
    const session = await findSession(this.pool, sessionHash);
    const now = this.now();
    if (!session || !isSessionLive(session, now)) return 'ended';
    if (isTouchDue(session, now))
      await touchSession(this.pool, sessionHash, now, sessionExpiry(session.createdAt, now));
    return { personId: session.personId, sessionHash, csrfSecret: session.csrfSecret };
  }

  async end(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const secret = request.cookies[sessionCookie];
    if (secret) await deleteSession(this.pool, hashSecret(secret));
    reply.clearCookie(sessionCookie, { path: '/' });
  }

  csrfToken(session: SessionPerson): string {
    return csrfTokens.create(session.csrfSecret);
  }

  hasValidCsrfToken(session: SessionPerson, request: FastifyRequest): boolean {
    const token = request.headers[csrfHeader];
    return typeof token === 'string' && csrfTokens.verify(session.csrfSecret, token);
  }

  /**
   * The request's live session, or the refusal: 401 without one, 403 for a method other than
   * GET and HEAD without the session's CSRF token. Sets `person`.
   */
  async authenticate(request: FastifyRequest): Promise<SessionPerson> {
    const session = await this.read(request);
    if (session === 'none') throw notLoggedIn();
    if (session === 'ended') throw sessionEnded();
    if (!safeMethods.has(request.method) && !this.hasValidCsrfToken(session, request)) throw csrfRefused();
    request.person = session;
    return session;
  }
}

/** Cookies and the session hook, registered once for every surface. */
export const sessionPlugin = fp<{ pool: PgPool; now?: () => Date }>(
  async (app, { pool, now }) => {
    await app.register(cookie);
    const sessions = new Sessions(pool, now);
    app.decorate('sessions', sessions);
    app.decorateRequest('person', undefined);
    app.decorate('requireSession', (): onRequestHookHandler => {
      return async (request: FastifyRequest) => {
        await sessions.authenticate(request);
      };
    });
  },
  { name: 'orrery-sessions' },
);
