import { describe, expect, it } from 'vitest';
import { balanceCents, hasCredit } from '../../../domain/billing/balance.ts';
import { chargeIdFor, decideCharges } from '../../../domain/billing/charges.ts';
import { decide, OrgCommandRefused } from '../../../domain/orgs/decide.ts';
import type { OrgEvent } from '../../../domain/orgs/events.ts';
import { evolve, initialState, type MaybeOrg } from '../../../domain/orgs/org.ts';

const now = new Date('2026-11-22T10:00:00Z');
const meta = { orgId: 'org_1', now };
const fold = (events: OrgEvent[], state: MaybeOrg = initialState()) => events.reduce(evolve, state);
const org = fold([
  ...decide({ ...meta, eventId: 'e1', type: 'CreateOrg', name: 'Acme' }, undefined),
  {
    eventId: 'e2',
    orgId: 'org_1',
    occurredAt: now,
    type: 'CreditGranted',
    grantId: 'g',
    amountCents: 3,
    reason: 'r',
  },
]);
const charge = (chargeId: string, cents: number) =>
  ({
    ...meta,
    eventId: `e-${chargeId}`,
    type: 'PostCharge',
    chargeId,
    model: 'scribe',
    day: '2026-11-22',
    cents,
  }) as const;

describe('ChargePosted on the org stream', () => {
  it('is decided for a positive charge, and counted once by chargeId', () => {
    const posted = decide(charge('chg_a', 2), org);
    expect(posted).toEqual([
      {
        eventId: 'e-chg_a',
        orgId: 'org_1',
        occurredAt: now,
        type: 'ChargePosted',
        chargeId: 'chg_a',
        model: 'scribe',
        day: '2026-11-22',
        cents: 2,
      },
    ]);
    const charged = fold(posted, org);
    expect(charged?.chargedCents).toBe(2);
    expect(decide(charge('chg_a', 2), charged)).toEqual([]);
    expect(fold(posted, charged)?.chargedCents).toBe(2);
  });

  it('takes the balance below zero rather than refusing: the usage happened', () => {
    const charged = fold(decide(charge('chg_b', 5), org), org);
    expect(balanceCents(charged)).toBe(-2);
    expect(hasCredit(charged)).toBe(false);
  });

  it('refuses a charge that is not a positive whole number of cents, or for no org', () => {
    expect(() => decide(charge('chg_c', 0), org)).toThrow(OrgCommandRefused);
    expect(() => decide(charge('chg_c', 1.5), org)).toThrow(OrgCommandRefused);
    expect(() => decide(charge('chg_c', 1), undefined)).toThrow(/No org/);
  });
});

describe('the balance (granted − charged) and the 402 rule', () => {
  it.each<[number, number, number, boolean]>([
    [3, 0, 3, true],
    [3, 2, 1, true],
    [3, 3, 0, false],
    [0, 0, 0, false],
  ])('granted %i, charged %i: balance %i, may ask: %s', (granted, charged, balance, may) => {
    const state = { creditGrantedCents: granted, chargedCents: charged };
    expect(balanceCents(state)).toBe(balance);
    expect(hasCredit(state)).toBe(may);
  });

  it('an unknown org has nothing to spend', () => {
    expect(balanceCents(undefined)).toBe(0);
    expect(hasCredit(undefined)).toBe(false);
  });
});

describe('chargeIdFor', () => {
  const owed = { orgId: 'org_1', model: 'scribe', day: '2026-11-22', cents: 1 };

  it('names a charge by what it charges: the same decision gives the same id', () => {
    expect(chargeIdFor(owed, 1)).toBe(chargeIdFor({ ...owed }, 1));
    expect(chargeIdFor(owed, 1)).toMatch(/^chg_[0-9a-f]{32}$/);
  });

  it('differs by org, model, day and the total after the charge', () => {
    const ids = new Set([
      chargeIdFor(owed, 0),
      chargeIdFor(owed, 1),
      chargeIdFor({ ...owed, orgId: 'org_2' }, 0),
      chargeIdFor({ ...owed, model: 'other' }, 0),
      chargeIdFor({ ...owed, day: '2026-11-21' }, 0),
    ]);
    expect(ids.size).toBe(5);
  });

  it('a stale run that decides the same difference posts the same id', () => {
    const first = decideCharges([{ ...owed, inputTokens: 150_000 }], []);
    const again = decideCharges([{ ...owed, inputTokens: 150_000 }], []);
    expect(chargeIdFor(first[0]!, 0)).toBe(chargeIdFor(again[0]!, 0));
  });
});
