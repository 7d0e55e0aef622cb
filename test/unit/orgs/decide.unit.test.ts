import { describe, expect, it } from 'vitest';
import { decide, type OrgCommand, OrgCommandRefused } from '../../../domain/orgs/decide.ts';
import type { OrgEvent } from '../../../domain/orgs/events.ts';
import { evolve, initialState, type MaybeOrg } from '../../../domain/orgs/org.ts';

const now = new Date('2026-11-22T10:00:00Z');
const meta = { eventId: 'e1', orgId: 'org_1', now };
const fold = (events: OrgEvent[]): MaybeOrg => events.reduce(evolve, initialState());
const created = fold(decide({ ...meta, type: 'CreateOrg', name: 'Acme' }, undefined));
const withKey = fold([
  ...decide({ ...meta, type: 'CreateOrg', name: 'Acme' }, undefined),
  ...decide(
    {
      ...meta,
      type: 'CreateApiKey',
      keyId: 'key_1',
      name: 'ci',
      keyHash: 'h',
      keyPrefix: 'orr_ab',
      scopes: ['traces:write'],
      createdBy: '',
    },
    created,
  ),
]);

describe('org decider', () => {
  it.each<[string, OrgCommand, MaybeOrg, string[]]>([
    ['creates an org', { ...meta, type: 'CreateOrg', name: 'Acme' }, undefined, ['OrgCreated']],
    [
      'creates a key',
      {
        ...meta,
        type: 'CreateApiKey',
        keyId: 'k',
        name: 'n',
        keyHash: 'h',
        keyPrefix: 'p',
        scopes: ['traces:write'],
        createdBy: '',
      },
      created,
      ['ApiKeyCreated'],
    ],
    ['revokes a live key', { ...meta, type: 'RevokeApiKey', keyId: 'key_1' }, withKey, ['ApiKeyRevoked']],
    [
      'grants credit',
      { ...meta, type: 'GrantCredit', grantId: 'g1', amountCents: 500, reason: 'trial' },
      created,
      ['CreditGranted'],
    ],
    ['enables tracing', { ...meta, type: 'EnableTracing' }, created, ['TracingEnabled']],
  ])('%s', (_, command, state, types) => {
    expect(decide(command, state).map((event) => event.type)).toEqual(types);
  });

  it.each<[string, OrgCommand, MaybeOrg, string]>([
    ['an org twice', { ...meta, type: 'CreateOrg', name: 'Acme' }, created, 'org_exists'],
    [
      'a key for no org',
      {
        ...meta,
        type: 'CreateApiKey',
        keyId: 'k',
        name: 'n',
        keyHash: 'h',
        keyPrefix: 'p',
        scopes: ['traces:write'],
        createdBy: '',
      },
      undefined,
      'org_not_found',
    ],
    [
      'a key without scopes',
      {
        ...meta,
        type: 'CreateApiKey',
        keyId: 'k',
        name: 'n',
        keyHash: 'h',
        keyPrefix: 'p',
        scopes: [],
        createdBy: '',
      },
      created,
      'invalid_request',
    ],
    ['revoking an unknown key', { ...meta, type: 'RevokeApiKey', keyId: 'nope' }, created, 'key_not_found'],
    [
      'zero credit',
      { ...meta, type: 'GrantCredit', grantId: 'g', amountCents: 0, reason: '' },
      created,
      'invalid_request',
    ],
    [
      'fractional credit',
      { ...meta, type: 'GrantCredit', grantId: 'g', amountCents: 1.5, reason: '' },
      created,
      'invalid_request',
    ],
  ])('refuses %s', (_, command, state, code) => {
    expect(() => decide(command, state)).toThrow(OrgCommandRefused);
    try {
      decide(command, state);
    } catch (error) {
      expect((error as OrgCommandRefused).code).toBe(code);
    }
  });

  it('is idempotent where a retry is natural: revoking twice, the same grant twice, enabling twice', () => {
    const afterRevoke = decide({ ...meta, type: 'RevokeApiKey', keyId: 'key_1' }, withKey).reduce(
      evolve,
      withKey,
    );
    expect(decide({ ...meta, type: 'RevokeApiKey', keyId: 'key_1' }, afterRevoke)).toEqual([]);
    const granted = decide(
      { ...meta, type: 'GrantCredit', grantId: 'g1', amountCents: 5, reason: '' },
      created,
    ).reduce(evolve, created);
    expect(granted?.creditGrantedCents).toBe(5);
    expect(
      decide({ ...meta, type: 'GrantCredit', grantId: 'g1', amountCents: 5, reason: '' }, granted),
    ).toEqual([]);
    const enabled = decide({ ...meta, type: 'EnableTracing' }, created).reduce(evolve, created);
    expect(decide({ ...meta, type: 'EnableTracing' }, enabled)).toEqual([]);
  });

  it('evolves keys: created live, revoked stays revoked, unknown keys ignored', () => {
    expect(withKey?.keys.key_1).toMatchObject({ scopes: ['traces:write'], revoked: false });
    const revoked = evolve(withKey, {
      type: 'ApiKeyRevoked',
      eventId: 'e',
      orgId: 'org_1',
      occurredAt: now,
      keyId: 'key_1',
    });
    expect(revoked?.keys.key_1?.revoked).toBe(true);
    expect(
      evolve(withKey, { type: 'ApiKeyRevoked', eventId: 'e', orgId: 'org_1', occurredAt: now, keyId: 'zzz' }),
    ).toBe(withKey);
  });
});

describe('evolve', () => {
  it('counts each charge and grant once, however late it is delivered again', () => {
    const base = { orgId: 'org_1', occurredAt: now };
    const charges: OrgEvent[] = Array.from({ length: 5_000 }, (_, index) => ({
      ...base,
      eventId: `charge-${index}`,
      type: 'ChargePosted',
      chargeId: `ch_${index}`,
      model: 'scribe',
      day: '2026-11-22',
      cents: 2,
    }));
    const grant: OrgEvent = {
      ...base,
      eventId: 'grant',
      type: 'CreditGranted',
      grantId: 'gr_1',
      amountCents: 500,
      reason: 'test',
    };
    const org = fold([
      { ...base, eventId: 'created', type: 'OrgCreated', name: 'Acme' },
      grant,
      ...charges,
      // Redelivered: the first charge and the grant again, after thousands of others.
      { ...charges[0]!, eventId: 'again' },
      { ...grant, eventId: 'grant-again' },
    ]);
    expect([org?.chargedCents, org?.chargeIds.size, org?.creditGrantedCents]).toEqual([10_000, 5_000, 500]);
  });
});

describe('asking to join the tracing beta', () => {
  const owned = fold(decide({ ...meta, type: 'CreateOrg', name: 'Acme', owner: 'person_1' }, undefined));
  const ask = (personId: string): OrgCommand => ({ ...meta, type: 'RequestTracing', personId });

  it('is recorded once, with who asked and when', () => {
    const events = decide(ask('person_1'), owned);
    expect(events).toEqual([expect.objectContaining({ type: 'TracingRequested', personId: 'person_1' })]);
    const asked = fold([
      ...decide({ ...meta, type: 'CreateOrg', name: 'Acme', owner: 'person_1' }, undefined),
      ...events,
    ]);
    expect(asked?.tracingRequested).toEqual({ at: now, by: 'person_1' });
    expect(decide(ask('person_1'), asked)).toEqual([]);
  });

  it('decides nothing in an org already in the beta, and refuses a non-member', () => {
    const enabled = fold([
      ...decide({ ...meta, type: 'CreateOrg', name: 'Acme', owner: 'person_1' }, undefined),
      ...decide({ ...meta, type: 'EnableTracing' }, owned),
    ]);
    expect(decide(ask('person_1'), enabled)).toEqual([]);
    expect(() => decide(ask('person_9'), owned)).toThrow(expect.objectContaining({ code: 'not_member' }));
  });
});
