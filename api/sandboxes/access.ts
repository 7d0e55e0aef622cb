import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { SandboxError } from '../../domain/sandboxes/errors.ts';
import { routeAccess, type SandboxRouteName } from '../../domain/sandboxes/routes.ts';
import { checkToken, type SandboxTokenPayload } from '../../domain/sandboxes/tokens.ts';
import type { OrgDirectory } from '../auth/org-directory.ts';
import type { Loaded, SandboxStore } from './store.ts';

// Who may call a sandbox route (spec, "Authentication"; domain/sandboxes/routes.ts): an API key
// with `sandboxes:write` on every route; a sandbox token on the desktop and screen routes of its
// own sandbox only, checked with the domain's `checkToken` once the route's `:id` is resolved.

export const sandboxScope = 'sandboxes:write';

const tokenOnKeyRoute = () =>
  new SandboxError('unauthorized', {
    message:
      'A sandbox token opens only the desktop and screen routes: call this route with an API key from a server.',
  });

/** The onRequest hooks of a route: authenticate, and refuse a token where only a key may call. */
export function guard(app: FastifyInstance, route: SandboxRouteName): onRequestHookHandler[] {
  const authenticate = app.requireKeyOrSandboxToken(sandboxScope, { fromQuery: route === 'screen' });
  if (routeAccess(route) !== 'api_key_only') return [authenticate];
  const keyOnly: onRequestHookHandler = async (request) => {
    if (request.sandboxToken) throw tokenOnKeyRoute();
  };
  return [authenticate, keyOnly];
}

/** What a request carries once authenticated: a key's org, or a token (whose org it names). */
export interface Caller {
  orgId: string;
  keyId: string;
  token?: SandboxTokenPayload;
}

export function callerOf(request: FastifyRequest): Caller {
  const token = request.sandboxToken;
  if (token) return { orgId: token.orgId, keyId: token.keyId, token };
  const principal = request.principal;
  if (!principal) throw new SandboxError('unauthorized');
  return { orgId: principal.orgId, keyId: principal.keyId };
}

export class SandboxAccess {
  constructor(
    private readonly store: SandboxStore,
    private readonly directory: OrgDirectory,
    private readonly now: () => Date,
  ) {}

  /** Revoking the key that minted a token ends the token (spec, "Authentication" 6). */
  minterActive(token: SandboxTokenPayload): boolean {
    const key = this.directory.org(token.orgId)?.keys[token.keyId];
    return key !== undefined && !key.revoked;
  }

  /**
   * The sandbox a route's `:id` names in the caller's org, with the caller's token checked
   * against it. A token whose org has no such sandbox is for another sandbox: 401, not 404.
   */
  async sandbox(
    caller: Caller,
    route: SandboxRouteName,
    idOrName: string,
    originHeader: string | undefined,
  ): Promise<Loaded> {
    const loaded = await this.store.resolve(caller.orgId, idOrName);
    if (caller.token) {
      const refusal = checkToken(caller.token, {
        route,
        sandboxId: loaded?.sandbox.id ?? '',
        now: this.now(),
        originHeader,
        minterActive: this.minterActive(caller.token),
        sandboxHasSecrets: loaded?.sandbox.hasSecrets ?? false,
      });
      if (refusal) throw refusal;
    }
    if (!loaded) throw new SandboxError('not_found');
    return loaded;
  }

  /** For a route's handler: the request's caller and its sandbox. */
  async forRequest(
    request: FastifyRequest,
    route: SandboxRouteName,
  ): Promise<{ caller: Caller; loaded: Loaded }> {
    const caller = callerOf(request);
    const { id } = request.params as { id: string };
    const loaded = await this.sandbox(caller, route, id, request.headers.origin);
    return { caller, loaded };
  }
}
