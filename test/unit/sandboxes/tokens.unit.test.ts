import { describe, expect, it } from 'vitest';
import type { OrgEvent } from '../../../domain/orgs/events.ts';
import { evolve, type MaybeOrg } from '../../../domain/orgs/org.ts';
import type { SandboxRouteName } from '../../../domain/sandboxes/routes.ts';
import { minterGoneCloses } from '../../../domain/sandboxes/screen-closes.ts';
import {
  type Ability,
  checkToken,
  hasAbility,
  type Minter,
  type MinterGone,
  minterGone,
  mintToken,
  originAllowed,
  parseOrigin,
  type SandboxTokenPayload,
  screenInputAllowed,
  type TokenRequest,
} from '../../../domain/sandboxes/tokens.ts';
import { at, given, sandboxIn } from './given.ts';

describe('abilities: control includes view', () => {
  it.each([
    [['view'], 'view', true],
    [['view'], 'control', false],
    [['control'], 'view', true],
    [['control'], 'control', true],
    [[], 'view', false],
  ] as [Ability[], Ability, boolean][])('%j has %s: %s', (granted, required, expected) => {
    expect(hasAbility(granted, required)).toBe(expected);
  });
});

describe('origins', () => {
  it.each([
    ['https://app.example.com', 'https://app.example.com'],
    ['HTTPS://App.Example.COM', 'https://app.example.com'],
    ['https://app.example.com/', 'https://app.example.com'],
    ['http://localhost:3000', 'http://localhost:3000'],
    ['https://app.example.com:443', 'https://app.example.com'],
    ['http://[::1]:8080', 'http://[::1]:8080'],
    ['https://app.example.com/path', undefined],
    ['https://app.example.com?q=1', undefined],
    ['https://app.example.com#top', undefined],
    ['https://user@app.example.com', undefined],
    ['app.example.com', undefined],
    ['null', undefined],
    ['https://', undefined],
  ])('%s', (text, normalized) => {
    const result = parseOrigin(text);
    expect(result.ok ? result.value : undefined).toBe(normalized);
  });

  it.each([
    ['a server (no Origin header)', [], undefined, true],
    ['a listed origin', ['https://app.example.com'], 'https://app.example.com', true],
    ['a listed origin in other case', ['https://app.example.com'], 'https://APP.example.com', true],
    ['another origin', ['https://app.example.com'], 'https://evil.example.com', false],
    ['another port', ['https://app.example.com'], 'https://app.example.com:8443', false],
    ['any browser when none are listed', [], 'https://app.example.com', false],
    ['an opaque origin', ['https://app.example.com'], 'null', false],
  ] as [string, string[], string | undefined, boolean][])('%s: %s', (_name, origins, header, expected) => {
    expect(originAllowed(origins, header)).toBe(expected);
  });
});

describe('minting', () => {
  const grant = {
    minter: { kind: 'key' as const, keyId: 'key_1' },
    abilities: ['control'] as [Ability],
    expiresInSeconds: 900,
    origins: [],
    now: at(0),
  };

  it('carries the sandbox, one ability and the expiry', () => {
    const sandbox = sandboxIn('running');
    expect(mintToken(sandbox, grant)).toEqual({
      sandboxId: sandbox?.id,
      orgId: 'org_1',
      minter: { kind: 'key' as const, keyId: 'key_1' },
      abilities: ['control'],
      origins: [],
      expiresAt: at(900),
    });
  });

  it.each([
    ['a stopped sandbox', sandboxIn('stopped'), undefined],
    ['a deleted sandbox', sandboxIn('deleted'), 'not_found'],
    ['no sandbox', sandboxIn('none'), 'not_found'],
    ['a sandbox with secrets', given([{ type: 'SetSecrets' }], sandboxIn('running')), 'sandbox_has_secrets'],
  ] as const)('for %s: %s', (_name, state, code) => {
    const refusal = (() => {
      try {
        mintToken(state, grant);
        return undefined;
      } catch (error) {
        return (error as { code: string }).code;
      }
    })();
    expect(refusal).toBe(code);
  });
});

// "Authentication" 6: a token ends with its key's revocation or its person's leaving; why, for the
// screen to say (api/sandboxes/screen.ts), while a request is refused alike either way.
describe("whether a token's minter still vouches for it", () => {
  const base = { eventId: 'e', orgId: 'org_1', occurredAt: at(0) };
  const founded: OrgEvent[] = [
    { ...base, type: 'OrgCreated', name: 'Acme' },
    { ...base, type: 'MemberAdded', personId: 'p_owner', role: 'owner' },
    { ...base, type: 'MemberAdded', personId: 'p_ada', role: 'member' },
    {
      ...base,
      type: 'ApiKeyCreated',
      keyId: 'key_1',
      name: 'ci',
      keyHash: 'h',
      keyPrefix: 'orr_ab',
      scopes: ['sandboxes:write'],
      createdBy: 'p_ada',
    },
  ];
  const revoked: OrgEvent = { ...base, type: 'ApiKeyRevoked', keyId: 'key_1' };
  const removed: OrgEvent = { ...base, type: 'MemberRemoved', personId: 'p_ada' };
  const addedAgain: OrgEvent = { ...base, type: 'MemberAdded', personId: 'p_ada', role: 'member' };
  const org = (events: OrgEvent[]) => events.reduce<MaybeOrg>(evolve, undefined);
  const key: Minter = { kind: 'key', keyId: 'key_1' };
  const ada: Minter = { kind: 'person', personId: 'p_ada' };

  it.each([
    ['a live key', key, founded, undefined],
    ['a revoked key', key, [...founded, revoked], 'key_revoked'],
    ['a key the org never had', { kind: 'key', keyId: 'key_2' }, founded, 'key_revoked'],
    ['a key whose creator was removed', key, [...founded, removed], undefined],
    ['a member', ada, founded, undefined],
    ['a person removed from the org (or who left it)', ada, [...founded, removed], 'person_removed'],
    ['a person removed, then added again', ada, [...founded, removed, addedAgain], undefined],
    ['a member when a key is revoked', ada, [...founded, revoked], undefined],
    ['a person never a member', { kind: 'person', personId: 'p_grace' }, founded, 'person_removed'],
    ['a key of an org the directory does not hold', key, [], 'key_revoked'],
    ['a person of an org the directory does not hold', ada, [], 'person_removed'],
  ] as [string, Minter, OrgEvent[], MinterGone | undefined][])('%s: %s', (_name, minter, events, gone) => {
    expect(minterGone(minter, org(events))).toBe(gone);
  });

  it('closes an open screen with a reason of its own for each: the page can say which', () => {
    expect(minterGoneCloses).toEqual({
      key_revoked: { code: 1008, reason: 'token revoked' },
      person_removed: { code: 1008, reason: 'removed from the org' },
    });
  });
});

describe('checking a token on a request', () => {
  const token = (abilities: [Ability], origins: string[] = []): SandboxTokenPayload => ({
    sandboxId: 'sbx_1',
    orgId: 'org_1',
    minter: { kind: 'key' as const, keyId: 'key_1' },
    abilities,
    origins,
    expiresAt: at(900),
  });
  const request = (route: SandboxRouteName, overrides: Partial<TokenRequest> = {}): TokenRequest => ({
    route,
    sandboxId: 'sbx_1',
    now: at(0),
    originHeader: undefined,
    minterActive: true,
    sandboxHasSecrets: false,
    ...overrides,
  });
  const answer = (t: SandboxTokenPayload, r: TokenRequest) => checkToken(t, r)?.code ?? 'allowed';

  // "Authentication" 4, 7 and 8 on every route: view, control, or API key only (401).
  it.each([
    ['desktop.status', 'allowed', 'allowed'],
    ['desktop.screenshot', 'allowed', 'allowed'],
    ['screen', 'allowed', 'allowed'],
    ['desktop.action', 'insufficient_ability', 'allowed'],
    ['desktop.input', 'insufficient_ability', 'allowed'],
    ['desktop.accessibility.tree', 'insufficient_ability', 'allowed'],
    ['desktop.accessibility.act', 'insufficient_ability', 'allowed'],
    ['sandbox.exec', 'unauthorized', 'unauthorized'],
    ['sandbox.files.read', 'unauthorized', 'unauthorized'],
    ['sandbox.files.write', 'unauthorized', 'unauthorized'],
    ['sandbox.stop', 'unauthorized', 'unauthorized'],
    ['sandbox.resume', 'unauthorized', 'unauthorized'],
    ['sandbox.restart', 'unauthorized', 'unauthorized'],
    ['sandbox.fork', 'unauthorized', 'unauthorized'],
    ['sandbox.destroy', 'unauthorized', 'unauthorized'],
    ['sandbox.update', 'unauthorized', 'unauthorized'],
    ['sandbox.tokens.create', 'unauthorized', 'unauthorized'],
    ['sandboxes.create', 'unauthorized', 'unauthorized'],
    ['sandboxes.list', 'unauthorized', 'unauthorized'],
    ['sandboxes.get', 'unauthorized', 'unauthorized'],
  ] as [SandboxRouteName, string, string][])(
    '%s: view → %s, control → %s',
    (route, withView, withControl) => {
      expect(answer(token(['view']), request(route))).toBe(withView);
      expect(answer(token(['control']), request(route))).toBe(withControl);
    },
  );

  it.each([
    [
      'expired (exactly at expires_at)',
      token(['control']),
      request('desktop.status', { now: at(900) }),
      'unauthorized',
    ],
    ['one second before expiry', token(['control']), request('desktop.status', { now: at(899) }), 'allowed'],
    [
      'for another sandbox',
      token(['control']),
      request('desktop.status', { sandboxId: 'sbx_2' }),
      'unauthorized',
    ],
    [
      'minting key revoked',
      token(['control']),
      request('desktop.status', { minterActive: false }),
      'unauthorized',
    ],
    [
      'sandbox has secrets',
      token(['control']),
      request('desktop.status', { sandboxHasSecrets: true }),
      'sandbox_has_secrets',
    ],
    [
      'browser, no origins',
      token(['control']),
      request('desktop.status', { originHeader: 'https://a.example' }),
      'origin_refused',
    ],
    [
      'browser, listed origin',
      token(['control'], ['https://a.example']),
      request('desktop.status', { originHeader: 'https://a.example' }),
      'allowed',
    ],
    [
      'browser, view token on control route, listed origin',
      token(['view'], ['https://a.example']),
      request('desktop.input', { originHeader: 'https://a.example' }),
      'insufficient_ability',
    ],
    [
      'expiry beats the origin',
      token(['view']),
      request('desktop.input', { originHeader: 'https://b.example', now: at(901) }),
      'unauthorized',
    ],
    [
      'origin beats the ability',
      token(['view']),
      request('desktop.input', { originHeader: 'https://b.example' }),
      'origin_refused',
    ],
  ] as const)('%s: %s', (_name, t, r, expected) => {
    expect(answer(t, r)).toBe(expected);
  });

  it('ignores screen input from a view token only', () => {
    expect(screenInputAllowed(token(['view']))).toBe(false);
    expect(screenInputAllowed(token(['control']))).toBe(true);
  });
});
