import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { Scope } from '../../domain/orgs/events.ts';
import { insufficientScope, unauthorized } from '../errors.ts';
import type { KeyPrincipal, OrgDirectory } from './org-directory.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** An onRequest hook: 401 without a live key, 403 `insufficient_scope` without `scope`. */
    requireKey(scope?: Scope): onRequestHookHandler;
  }
  interface FastifyRequest {
    principal?: KeyPrincipal;
  }
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** The shared auth hook, registered once; errors are written by each surface's error handler. */
export const authPlugin = fp<{ directory: OrgDirectory }>(
  async (app, { directory }) => {
    app.decorateRequest('principal', undefined);
    app.decorate('requireKey', (scope?: Scope): onRequestHookHandler => {
      return async (request: FastifyRequest, _reply: FastifyReply) => {
        const token = bearerToken(request);
        const principal = token ? directory.principal(hashApiKey(token)) : undefined;
        if (!principal) throw unauthorized();
        if (scope && !principal.scopes.includes(scope)) throw insufficientScope(scope);
        request.principal = principal;
      };
    });
  },
  { name: 'orrery-auth' },
);
