import { describe, expect, it } from 'vitest';
import { OrgDirectory } from '../../../api/auth/org-directory.ts';
import { decide, type OrgCommand, OrgCommandRefused } from '../../../domain/orgs/decide.ts';
import type { OrgEvent } from '../../../domain/orgs/events.ts';
import { evolve, type MaybeOrg, type OrgState } from '../../../domain/orgs/org.ts';
import { orgPriceLimits } from '../../../domain/tracing/org-prices.ts';
import type { UsdPerMillion } from '../../../domain/tracing/prices.ts';

// An org's own model prices (issue 50, item 1): the decisions to set and remove one, what evolve
// folds from them, and the directory's read of them for the ingest.

const now = new Date('2026-12-08T10:00:00Z');
const later = new Date('2026-12-08T11:00:00Z');
const orgId = 'org_1';
const meta = (at = now) => ({ eventId: `e_${at.getTime()}_${Math.random()}`, orgId, now: at });

function apply(state: MaybeOrg, command: OrgCommand): OrgState {
  return decide(command, state).reduce(evolve, state)!;
}

function refusal(command: OrgCommand, state: MaybeOrg): OrgCommandRefused | undefined {
  try {
    decide(command, state);
    return undefined;
  } catch (error) {
    if (error instanceof OrgCommandRefused) return error;
    throw error;
  }
}

const set = (model: string, usdPerMillion: UsdPerMillion, setBy = 'p_member', at = now): OrgCommand => ({
  ...meta(at),
  type: 'SetModelPrice',
  model,
  usdPerMillion,
  setBy,
});
const remove = (model: string, removedBy = 'p_member'): OrgCommand => ({
  ...meta(later),
  type: 'RemoveModelPrice',
  model,
  removedBy,
});

const org = apply(apply(undefined, { ...meta(), type: 'CreateOrg', name: 'Acme', owner: 'p_owner' }), {
  ...meta(),
  actor: { kind: 'person', personId: 'p_owner' },
  type: 'AddMember',
  personId: 'p_member',
  role: 'member',
});

describe('setting a model price', () => {
  it('records the price as given, by whom, and evolve keeps it under the model in lower case', () => {
    const events = decide(set('GPT-4o', { input: 2.5, output: 10, cached_input: 1.25 }), org);
    expect(events).toEqual([
      {
        eventId: expect.any(String),
        orgId,
        occurredAt: now,
        type: 'ModelPriceSet',
        model: 'GPT-4o',
        usdPerMillion: { input: 2.5, output: 10, cached_input: 1.25 },
        setBy: 'p_member',
      },
    ]);
    const priced = events.reduce(evolve, org)!;
    expect([...priced.prices]).toEqual([
      [
        'gpt-4o',
        {
          model: 'GPT-4o',
          usdPerMillion: { input: 2.5, output: 10, cached_input: 1.25 },
          setAt: now,
          setBy: 'p_member',
        },
      ],
    ]);
  });

  it('replaces the price of the same model in any case, keeping the name last given', () => {
    const first = apply(org, set('gpt-4o', { input: 2.5, output: 10 }));
    const second = apply(first, set('GPT-4o', { input: 2, output: 8, reasoning: 12 }, 'p_owner', later));
    expect([...second.prices.values()]).toEqual([
      {
        model: 'GPT-4o',
        usdPerMillion: { input: 2, output: 8, reasoning: 12 },
        setAt: later,
        setBy: 'p_owner',
      },
    ]);
    // The earlier state is not changed: evolve makes a new map.
    expect(first.prices.get('gpt-4o')?.usdPerMillion).toEqual({ input: 2.5, output: 10 });
  });

  it('keeps one price per model, and models named like an object property are models too', () => {
    const priced = [
      set('constructor', { input: 1, output: 2 }),
      set('claude-sonnet-4', { input: 3, output: 15 }),
      set('openai/gpt-4o', { input: 0, output: 0 }),
    ].reduce(apply, org);
    expect([...priced.prices.keys()].sort()).toEqual(['claude-sonnet-4', 'constructor', 'openai/gpt-4o']);
    expect(refusal(remove('toString'), priced)?.code).toBe('price_not_found');
    expect(apply(priced, remove('CONSTRUCTOR')).prices.has('constructor')).toBe(false);
  });

  it('decides nothing when the org already has that price, spelled the same', () => {
    const priced = apply(org, set('gpt-4o', { input: 2.5, output: 10 }));
    expect(decide(set('gpt-4o', { input: 2.5, output: 10 }, 'p_owner', later), priced)).toEqual([]);
    expect(decide(set('GPT-4o', { input: 2.5, output: 10 }), priced)).toHaveLength(1);
    expect(decide(set('gpt-4o', { input: 2.5, output: 10, cached_input: 2.5 }), priced)).toHaveLength(1);
  });

  it('records a kind left out as absent, never as undefined (the wire and the read model have no undefined)', () => {
    const [event] = decide(
      set('m', { input: 1, output: 2, cached_input: undefined, reasoning: undefined }),
      org,
    ) as Extract<OrgEvent, { type: 'ModelPriceSet' }>[];
    expect(Object.keys(event!.usdPerMillion)).toEqual(['input', 'output']);
  });

  it('takes an operator (no person) and a price of zero or at the ceiling', () => {
    const ceiling = orgPriceLimits.usdPerMillion;
    expect(
      decide(set('m', { input: 0, output: ceiling, cached_input: 0, reasoning: ceiling }, ''), org),
    ).toHaveLength(1);
  });

  it.each<[string, OrgCommand, MaybeOrg, string]>([
    ['in no org', set('m', { input: 1, output: 1 }), undefined, 'org_not_found'],
    ['by a person not in the org', set('m', { input: 1, output: 1 }, 'p_stranger'), org, 'not_member'],
    ['a negative price', set('m', { input: -0.01, output: 1 }), org, 'invalid_request'],
    ['a price that is not a number', set('m', { input: 1, output: Number.NaN }), org, 'invalid_request'],
    ['an infinite price', set('m', { input: 1, output: 1, reasoning: Infinity }), org, 'invalid_request'],
    [
      'a price above the ceiling',
      set('m', { input: 1, output: 1, cached_input: orgPriceLimits.usdPerMillion + 1 }),
      org,
      'invalid_request',
    ],
    ['an empty model', set('', { input: 1, output: 1 }), org, 'invalid_request'],
    ['a model of 201 characters', set('m'.repeat(201), { input: 1, output: 1 }), org, 'invalid_request'],
    ['a model with a control character', set('gpt-4o\n', { input: 1, output: 1 }), org, 'invalid_request'],
    ['a model with DEL', set('gpt\u007f4o', { input: 1, output: 1 }), org, 'invalid_request'],
  ])('refuses %s', (_, command, state, code) => {
    expect(refusal(command, state)?.code).toBe(code);
  });

  it('names the kind at fault in its refusal', () => {
    expect(refusal(set('m', { input: 1, output: 1, reasoning: -1 }), org)?.message).toMatch(/^`reasoning`: /);
  });

  it('takes a model of 200 characters, counted as characters, not UTF-16 units', () => {
    expect(decide(set('m'.repeat(200), { input: 1, output: 1 }), org)).toHaveLength(1);
    expect(decide(set('😀'.repeat(200), { input: 1, output: 1 }), org)).toHaveLength(1);
  });
});

describe('removing a model price', () => {
  const priced = apply(org, set('GPT-4o', { input: 2.5, output: 10 }));

  it('records the model as the org had it, and evolve forgets it', () => {
    const events = decide(remove('gpt-4o'), priced);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'ModelPriceRemoved',
        model: 'GPT-4o',
        removedBy: 'p_member',
        occurredAt: later,
      }),
    ]);
    expect(events.reduce(evolve, priced)!.prices.size).toBe(0);
  });

  it('refuses a model the org has no price of its own for, with the 404 the surface answers', () => {
    const refused = refusal(remove('claude-sonnet-4'), priced);
    expect(refused?.code).toBe('price_not_found');
    expect(refused?.message).toContain('GET /api/prices');
    // Removed once, a second removal finds none.
    expect(refusal(remove('GPT-4o'), apply(priced, remove('GPT-4o')))?.code).toBe('price_not_found');
  });

  it('refuses a person not in the org, and an org that does not exist', () => {
    expect(refusal(remove('GPT-4o', 'p_stranger'), priced)?.code).toBe('not_member');
    expect(refusal(remove('GPT-4o'), undefined)?.code).toBe('org_not_found');
  });

  it('leaves the state as it was when evolve meets a removal of a price it does not hold (a redelivery)', () => {
    const event: OrgEvent = {
      eventId: 'again',
      orgId,
      occurredAt: later,
      type: 'ModelPriceRemoved',
      model: 'claude-sonnet-4',
      removedBy: '',
    };
    expect(evolve(priced, event)).toBe(priced);
  });
});

describe("the directory's prices (read by the ingest once per request)", () => {
  const events = (...commands: OrgCommand[]): OrgEvent[] => {
    let state: MaybeOrg;
    return commands.flatMap((command) => {
      const decided = decide(command, state);
      state = decided.reduce(evolve, state);
      return decided;
    });
  };

  it("answers the org's own prices, the same array until a price changes, and none for an org without", () => {
    const directory = new OrgDirectory();
    const story = events(
      { ...meta(), type: 'CreateOrg', name: 'Acme', owner: 'p_owner' },
      set('gpt-4o', { input: 2.5, output: 10 }, 'p_owner'),
      set('claude-sonnet-4', { input: 3, output: 15 }, 'p_owner'),
    );
    for (const event of story) directory.apply(event);
    const prices = directory.prices(orgId);
    expect(prices.map((price) => [price.model, price.usdPerMillion])).toEqual([
      ['gpt-4o', { input: 2.5, output: 10 }],
      ['claude-sonnet-4', { input: 3, output: 15 }],
    ]);
    expect(directory.prices(orgId)).toBe(prices);
    expect(Object.isFrozen(prices)).toBe(true);
    expect(directory.prices('org_unknown')).toEqual([]);

    directory.apply({
      eventId: 'removed',
      orgId,
      occurredAt: later,
      type: 'ModelPriceRemoved',
      model: 'GPT-4o',
      removedBy: 'p_owner',
    });
    expect(directory.prices(orgId).map((price) => price.model)).toEqual(['claude-sonnet-4']);
    expect(prices).toHaveLength(2);
  });
});
