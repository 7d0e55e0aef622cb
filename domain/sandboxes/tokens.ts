import { isMember } from '../orgs/membership.ts';
import type { OrgState } from '../orgs/org.ts';
import type { Checked } from './checked.ts';
import { requireExisting } from './decide.ts';
import { SandboxError } from './errors.ts';
import { routeAccess, type SandboxRouteName } from './routes.ts';
import type { SandboxState } from './sandbox.ts';

// Sandbox tokens (spec, "Authentication" 3 to 8; "Sandbox token"; "Limits": token lifetime and
// origins). The signed, compact string is the platform's concern; this is what it carries and
// the rules it is checked by.

export const abilities = ['view', 'control'] as const;
export type Ability = (typeof abilities)[number];

/** `control` includes `view`. */
const includedAbilities: Record<Ability, readonly Ability[]> = {
  view: ['view'],
  control: ['control', 'view'],
};

export function hasAbility(granted: readonly Ability[], required: Ability): boolean {
  return granted.some((ability) => includedAbilities[ability].includes(required));
}

export const tokenLifetimeSeconds = { min: 60, max: 3600, default: 900 } as const;
export const maxOrigins = 10;

/**
 * Who minted a token (spec, "Authentication" 2 and 6): an API key, or a person in a dashboard
 * session. Revoking the key, or the person leaving the org, ends the token.
 */
export type Minter = { kind: 'key'; keyId: string } | { kind: 'person'; personId: string };

/**
 * Why a token's minter no longer vouches for it (spec, "Authentication" 6): the key was revoked,
 * or the person left the org or was removed from it (one event, `MemberRemoved`).
 */
export type MinterGone = 'key_revoked' | 'person_removed';

/**
 * The one rule for "the minter is gone", read by every request with a token and by each open
 * screen; `undefined` while the minter still vouches. An org, key or member the directory does
 * not hold counts as gone: nothing vouches for the token.
 */
export function minterGone(minter: Minter, org: OrgState | undefined): MinterGone | undefined {
  if (minter.kind === 'person')
    return org !== undefined && isMember(org, minter.personId) ? undefined : 'person_removed';
  const key = org?.keys[minter.keyId];
  return key !== undefined && !key.revoked ? undefined : 'key_revoked';
}

export interface SandboxTokenPayload {
  sandboxId: string;
  orgId: string;
  minter: Minter;
  abilities: [Ability];
  /** Normalized `scheme://host[:port]`; empty refuses every browser. */
  origins: string[];
  expiresAt: Date;
}

/** Refuses minting for a sandbox that is deleted, unknown, or has secrets. Inputs arrive parsed. */
export function mintToken(
  state: SandboxState,
  grant: {
    minter: Minter;
    /** Exactly one ability (requests.ts refuses anything else with 422 on `abilities`). */
    abilities: [Ability];
    expiresInSeconds: number;
    origins: string[];
    now: Date;
  },
): SandboxTokenPayload {
  const sandbox = requireExisting(state);
  if (sandbox.hasSecrets) throw new SandboxError('sandbox_has_secrets');
  return {
    sandboxId: sandbox.id,
    orgId: sandbox.orgId,
    minter: grant.minter,
    abilities: grant.abilities,
    origins: grant.origins,
    expiresAt: new Date(grant.now.getTime() + grant.expiresInSeconds * 1000),
  };
}

// An origin is `scheme://host[:port]`, optionally with a bare trailing `/` (as pasted from an
// address bar); a path, query, fragment or user name makes it something else.
const originShape = /^([a-z][a-z0-9+.-]*):\/\/([^/?#@\s]+)\/?$/i;

/** Parses one entry of `origins` (or an `Origin` header) into lowercase `scheme://host[:port]`. */
export function parseOrigin(text: string): Checked<string> {
  const refused = {
    ok: false,
    message: `origin \`${text}\` must be a scheme and host such as \`https://app.example.com\`, with no path, query or fragment`,
  } as const;
  if (!originShape.test(text)) return refused;
  try {
    const url = new URL(text);
    if (url.host === '') return refused;
    // URL drops a scheme's default port (`https://a.com:443` → `a.com`), as browsers do in `Origin`.
    return { ok: true, value: `${url.protocol}//${url.host}`.toLowerCase() };
  } catch {
    return refused;
  }
}

/** A request without `Origin` comes from a server and is not checked; a browser's must be listed. */
export function originAllowed(origins: readonly string[], originHeader: string | undefined): boolean {
  if (originHeader === undefined) return true;
  const origin = parseOrigin(originHeader);
  return origin.ok && origins.includes(origin.value);
}

/** What the API knows about a request carrying a sandbox token. */
export interface TokenRequest {
  route: SandboxRouteName;
  /** The id the route's `:id` resolved to. */
  sandboxId: string;
  now: Date;
  originHeader: string | undefined;
  /** False once `minterGone` says why: the minting key revoked, or its person gone from the org. */
  minterActive: boolean;
  sandboxHasSecrets: boolean;
}

interface TokenCheck {
  refuses: (token: SandboxTokenPayload, request: TokenRequest) => boolean;
  error: () => SandboxError;
}

/** In order: the first check that refuses decides the answer; 401s first, then 409, then 403s. */
const tokenChecks: readonly TokenCheck[] = [
  {
    refuses: (token, request) => request.now.getTime() >= token.expiresAt.getTime(),
    error: () =>
      new SandboxError('unauthorized', { message: 'The sandbox token has expired: mint a new one.' }),
  },
  {
    refuses: (token, request) => token.sandboxId !== request.sandboxId,
    error: () =>
      new SandboxError('unauthorized', {
        message: 'This sandbox token is for another sandbox: mint one for this sandbox.',
      }),
  },
  {
    refuses: (_token, request) => !request.minterActive,
    error: () =>
      new SandboxError('unauthorized', {
        message:
          'The key that minted this token was revoked, or the person who minted it left the org: mint a new token.',
      }),
  },
  {
    refuses: (_token, request) => routeAccess(request.route) === 'api_key_only',
    error: () =>
      new SandboxError('unauthorized', {
        message:
          'A sandbox token opens only the desktop and screen routes: call this route with an API key from a server.',
      }),
  },
  {
    refuses: (_token, request) => request.sandboxHasSecrets,
    error: () => new SandboxError('sandbox_has_secrets'),
  },
  {
    refuses: (token, request) => !originAllowed(token.origins, request.originHeader),
    error: () =>
      new SandboxError('origin_refused', {
        message:
          "This page's origin is not in the token's origins (a token minted without origins refuses every browser): mint a token whose `origins` lists it.",
      }),
  },
  {
    refuses: (token, request) => {
      const access = routeAccess(request.route);
      return access !== 'api_key_only' && !hasAbility(token.abilities, access);
    },
    error: () => new SandboxError('insufficient_ability'),
  },
];

/** The refusal for a request with this token, or `undefined` when it may go ahead. */
export function checkToken(token: SandboxTokenPayload, request: TokenRequest): SandboxError | undefined {
  return tokenChecks.find((check) => check.refuses(token, request))?.error();
}

/** On the screen, a `view` token sees; only a `control` token's keyboard and mouse reach the desktop. */
export function screenInputAllowed(token: SandboxTokenPayload): boolean {
  return hasAbility(token.abilities, 'control');
}
