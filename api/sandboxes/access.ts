import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { SandboxError } from '../../domain/sandboxes/errors.ts';
import { routeAccess, type SandboxRouteName, sessionMayCall } from '../../domain/sandboxes/routes.ts';
import {
  checkToken,
  type Minter,
  type MinterGone,
  minterGone,
  type SandboxTokenPayload,
} from '../../domain/sandboxes/tokens.ts';
import type { Loaded, SandboxStore } from '../../stores/sandboxes.ts';
import type { OrgDirectory } from '../auth/org-directory.ts';

// Who may call a sandbox route (spec, "Authentication"; domain/sandboxes/routes.ts): an API key
// with `sandboxes:write` on every route; a dashboard session where the route allows one (minting
// a token, the desktop's start and stop); a sandbox token on the desktop and screen routes of its own sandbox only, checked with
// the domain's `checkToken` once the route's `:id` is resolved.

export const sandboxScope = 'sandboxes:write';

const tokenOnKeyRoute = () =>
  new SandboxError('unauthorized', {
    message:
      'A sandbox token opens only the desktop and screen routes: call this route with an API key from a server.',
  });

/** The onRequest hooks of a route: authenticate, and refuse a token where only a key may call. */
export function guard(app: FastifyInstance, route: SandboxRouteName): onRequestHookHandler[] {
  const authenticate = app.requireKeyOrSandboxToken(sandboxScope, { fromQuery: route === 'screen' });
  if (sessionMayCall(route)) {
    const keyOrSession = app.requireKeyOrSession(sandboxScope);
    if (routeAccess(route) === 'api_key_only') return [keyOrSession];
    // A token's route a session may call too (the desktop's start and stop, from the sandbox's
    // page): whatever is in Authorization, a key or a token, else the session with its CSRF token.
    const keyTokenOrSession: onRequestHookHandler = async function (request, reply) {
      const hook = request.headers.authorization === undefined ? keyOrSession : authenticate;
      await hook.call(this, request, reply, () => {});
    };
    return [keyTokenOrSession];
  }
  if (routeAccess(route) !== 'api_key_only') return [authenticate];
  const keyOnly: onRequestHookHandler = async (request) => {
    if (request.sandboxToken) throw tokenOnKeyRoute();
  };
  return [authenticate, keyOnly];
}

/**
 * What a request carries once authenticated: a key's org, a session's member and org, or a token
 * (whose org it names). `minter` is who a token minted by this request would name.
 */
export interface Caller {
  orgId: string;
  minter: Minter;
  token?: SandboxTokenPayload;
}

export function callerOf(request: FastifyRequest): Caller {
  const token = request.sandboxToken;
  if (token) return { orgId: token.orgId, minter: token.minter, token };
  const { principal } = request;
  if (!principal) throw new SandboxError('unauthorized');
  const minter: Minter =
    principal.kind === 'key'
      ? { kind: 'key', keyId: principal.keyId }
      : { kind: 'person', personId: principal.personId };
  return { orgId: principal.orgId, minter };
}

export class SandboxAccess {
  constructor(
    private readonly store: SandboxStore,
    private readonly directory: OrgDirectory,
    private readonly now: () => Date,
  ) {}

  /**
   * Revoking the key that minted a token, or its person leaving the org, ends the token (spec,
   * "Authentication" 6), as soon as the directory has the event: why, or `undefined` while the
   * minter still vouches for it. A request is refused alike either way; an open screen says which.
   */
  minterGone(token: SandboxTokenPayload): MinterGone | undefined {
    return minterGone(token.minter, this.directory.org(token.orgId));
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
        minterActive: this.minterGone(caller.token) === undefined,
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
