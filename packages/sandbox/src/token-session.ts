import { screenUrl } from './addresses.js';
import type { TokenGrant } from './api-types.js';
import { Connection, type Fetch } from './connection.js';
import { Desktop } from './desktop.js';
import type { Ability } from './desktop-types.js';
import { invalidArgument, missingArgument } from './errors.js';

// `Client.fromToken` (spec 002): a sandbox token in a browser. It opens only the desktop and the
// live screen of its own sandbox, so that is all it returns; the org's API key stays on a server.

export interface FromTokenOptions {
  /** The sandbox's id: required with a token string, taken from a grant otherwise. */
  sandbox?: string;
  baseUrl?: string;
  fetch?: Fetch;
}

export interface TokenSession {
  /**
   * The sandbox's desktop. From a grant, methods beyond its ability reject with
   * `insufficient_ability` without a request; from a token string the ability is unknown here, so
   * the API answers the same refusal.
   */
  desktop: Desktop;
  /** The live screen's WebSocket URL, `ws(s)://…/api/sandboxes/:id/screen?token=…`. */
  screenUrl: string;
  token: string;
  sandbox: string;
  baseUrl: string;
}

export function fromToken(grant: TokenGrant | string, options: FromTokenOptions = {}): TokenSession {
  const given =
    typeof grant === 'string' ? { token: grant, sandbox: undefined, ability: undefined } : fromGrant(grant);
  if (typeof given.token !== 'string' || given.token === '')
    throw missingArgument('token', 'send the grant `createToken` resolved with, or its `token` string');
  if (given.sandbox !== undefined && options.sandbox !== undefined && options.sandbox !== given.sandbox)
    throw invalidArgument('sandbox', `send the grant's own sandbox, \`${given.sandbox}\`, or leave it out`);
  const sandbox = given.sandbox ?? options.sandbox;
  if (sandbox === undefined || sandbox === '')
    throw missingArgument('sandbox', 'send the sandbox id the token was minted for, as `options.sandbox`');
  const connection = new Connection({ bearer: given.token, baseUrl: options.baseUrl, fetch: options.fetch });
  return {
    desktop: new Desktop(connection, sandbox, given.ability),
    screenUrl: screenUrl(connection.baseUrl, sandbox, given.token),
    token: given.token,
    sandbox,
    baseUrl: connection.baseUrl,
  };
}

function fromGrant(grant: TokenGrant): { token: string; sandbox: string; ability: Ability | undefined } {
  return { token: grant.token, sandbox: grant.sandbox, ability: grant.abilities?.[0] };
}
