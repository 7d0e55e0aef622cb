import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { type Scope, scopes } from '../../domain/orgs/events.ts';
import type { SandboxTokenPayload } from '../../domain/sandboxes/tokens.ts';
import { ApiError, insufficientScope, KeysNotLoaded, unauthorized } from '../errors.ts';
import { hashApiKey } from './api-keys.ts';
import type { KeyPrincipal, OrgDirectory, Principal } from './org-directory.ts';
import { isSandboxToken, type SandboxTokenCodec } from './sandbox-tokens.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * An onRequest hook: 503 `KeysNotLoaded` while the keys are still being read, 401 without a
     * live key, 403 `insufficient_scope` without `scope`.
     */
    requireKey(scope?: Scope): onRequestHookHandler;
    /**
     * For the desktop and screen routes (spec, "Authentication" 1, 4 to 8): a live key with
     * `scope` (sets `principal`), or a sandbox token signed by us (sets `sandboxToken`; the route
     * then checks its rules with domain/sandboxes' `checkToken` once it knows the sandbox).
     * `fromQuery` also takes a sandbox token (never a key) from `?token=`: a browser's WebSocket
     * cannot send headers.
     */
    requireKeyOrSandboxToken(scope: Scope, options?: { fromQuery?: boolean }): onRequestHookHandler;
    /**
     * For what a dashboard session may do besides a key (spec 002, "Authentication" 2): a live key
     * with `scope` (sets `principal`) when `Authorization` is sent, else a live session (sets
     * `person`, and a member `principal` in the org named by the `Orrery-Org` header, or the
     * person's only org).
     */
    requireKeyOrSession(scope?: Scope): onRequestHookHandler;
  }
  interface FastifyRequest {
    principal?: Principal;
    sandboxToken?: SandboxTokenPayload;
  }
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

export interface AuthOptions {
  directory: OrgDirectory;
  sandboxTokens?: SandboxTokenCodec;
  /** Whether the directory has read the org stream to its end; before that no key is judged. */
  keysLoaded: () => boolean;
}

/** The shared auth hook, registered once; errors are written by each surface's error handler. */
export const authPlugin = fp<AuthOptions>(
  async (app, { directory, sandboxTokens, keysLoaded }) => {
    /**
     * The key's principal, or undefined for an unknown or revoked key. A key the directory may
     * not have read yet is not called unknown: the caller is told to come back (503).
     */
    const principalOf = (key: string): KeyPrincipal | undefined => {
      if (!keysLoaded()) throw new KeysNotLoaded();
      return directory.principal(hashApiKey(key));
    };
    app.decorateRequest('principal', undefined);
    app.decorateRequest('sandboxToken', undefined);
    /** The live key in `Authorization` with `scope`, or the refusal (401, 403). */
    const keyFromHeader = (request: FastifyRequest, scope?: Scope): KeyPrincipal => {
      const token = bearerToken(request);
      const principal = token ? principalOf(token) : undefined;
      if (!principal) throw unauthorized();
      if (scope && !principal.scopes.includes(scope)) throw insufficientScope(scope);
      return principal;
    };
    app.decorate('requireKey', (scope?: Scope): onRequestHookHandler => {
      return async (request: FastifyRequest, _reply: FastifyReply) => {
        request.principal = keyFromHeader(request, scope);
      };
    });
    app.decorate('requireKeyOrSession', (scope?: Scope): onRequestHookHandler => {
      return async (request: FastifyRequest, _reply: FastifyReply) => {
        if (request.headers.authorization !== undefined) {
          request.principal = keyFromHeader(request, scope);
          return;
        }
        const { personId } = await app.sessions.authenticate(request);
        const orgId = sessionOrg(directory, personId, request.headers[orgHeader]);
        request.principal = { kind: 'member', orgId, personId, scopes };
      };
    });
    app.decorate('requireKeyOrSandboxToken', (scope: Scope, options: { fromQuery?: boolean } = {}) => {
      return async (request: FastifyRequest, _reply: FastifyReply) => {
        const fromHeader = bearerToken(request);
        const token = fromHeader ?? (options.fromQuery ? queryToken(request) : undefined);
        if (token !== undefined && isSandboxToken(token)) {
          const payload = sandboxTokens?.decode(token);
          if (!payload) throw invalidSandboxToken();
          request.sandboxToken = payload;
          return;
        }
        // An API key is taken from the header only: a URL ends up in logs and browser history.
        request.principal = keyFromHeader(request, scope);
      };
    });
  },
  { name: 'orrery-auth', dependencies: ['orrery-sessions'] },
);

/** The key a `requireKey` route was called with (a session never reaches such a route). */
export function keyPrincipalOf(request: FastifyRequest): KeyPrincipal {
  const principal = request.principal;
  if (principal?.kind !== 'key') throw unauthorized();
  return principal;
}

/** The header a dashboard session names its org with, as Stripe's `Stripe-Account` does. */
export const orgHeader = 'orrery-org';

/** The org a session acts in: the one the header names (if a member), or the person's only org. */
function sessionOrg(directory: OrgDirectory, personId: string, named: string | string[] | undefined): string {
  if (typeof named === 'string') {
    const org = directory.memberOrg(named, personId);
    if (!org)
      throw new ApiError(
        'org_not_found',
        404,
        `You are not a member of org ${named}: name one of yours in Orrery-Org.`,
        'Orrery-Org',
      );
    return org.orgId;
  }
  const orgs = directory.orgsOf(personId);
  if (orgs.length === 1) return orgs[0]!.orgId;
  throw new ApiError(
    'invalid_request',
    422,
    orgs.length === 0
      ? 'You are not a member of any org: create one, or accept an invitation.'
      : 'You belong to several orgs: name one in the Orrery-Org header.',
    'Orrery-Org',
  );
}

function queryToken(request: FastifyRequest): string | undefined {
  const token = (request.query as Record<string, unknown> | undefined)?.token;
  return typeof token === 'string' && token !== '' ? token : undefined;
}

const invalidSandboxToken = () =>
  new ApiError(
    'unauthorized',
    401,
    'This sandbox token is not valid (altered, truncated, or signed by another server): mint a new one with POST /api/sandboxes/:id/tokens.',
  );
