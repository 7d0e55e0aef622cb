import { describe, expect, it } from 'vitest';
import { type DayUsage, decideCharges, type OwedCharge } from '../../../domain/billing/charges.ts';
import { utcDay } from '../../../domain/billing/day.ts';
import { dayPriceCents, requestPriceCents } from '../../../domain/billing/price.ts';

describe('dayPriceCents: 0.10 USD per million input tokens, a day rounded up to a cent once', () => {
  it.each([
    { tokens: 0, cents: 0 },
    { tokens: 1, cents: 1 },
    { tokens: 99_999, cents: 1 },
    { tokens: 100_000, cents: 1 },
    { tokens: 100_001, cents: 2 },
    { tokens: 150_000, cents: 2 },
    { tokens: 1_000_000, cents: 10 },
    { tokens: 1_000_000_000, cents: 10_000 },
    { tokens: Number.MAX_SAFE_INTEGER, cents: 90_071_992_548 },
  ])('$tokens tokens cost $cents cents', ({ tokens, cents }) => {
    expect(dayPriceCents(tokens)).toBe(cents);
  });

  it.each([-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1])('refuses %s tokens', (tokens) => {
    expect(() => dayPriceCents(tokens)).toThrow(RangeError);
  });
});

describe("requestPriceCents: one request's tokens at the same price, the fraction of a cent kept", () => {
  it.each([
    { tokens: 0, cents: 0 },
    { tokens: 1, cents: 0.00001 },
    { tokens: 120, cents: 0.0012 },
    { tokens: 150_000, cents: 1.5 },
    { tokens: 1_000_000, cents: 10 },
  ])('$tokens tokens cost $cents cents', ({ tokens, cents }) => {
    expect(requestPriceCents(tokens)).toBeCloseTo(cents, 12);
  });

  it("is not rounded: requests of under a cent each add up to the day's price", () => {
    const requests = [1, 120, 99_879];
    for (const tokens of requests) expect(requestPriceCents(tokens)).toBeLessThan(1);
    const unrounded = requests.reduce((sum, tokens) => sum + requestPriceCents(tokens), 0);
    expect(unrounded).toBeCloseTo(dayPriceCents(100_000), 12);
  });
});

describe('utcDay', () => {
  it.each([
    { ms: Date.UTC(2025, 0, 31, 23, 59, 59, 999), day: '2025-01-31' },
    { ms: Date.UTC(2025, 1, 1, 0, 0, 0, 0), day: '2025-02-01' },
  ])('$ms is $day', ({ ms, day }) => {
    expect(utcDay(ms)).toBe(day);
  });
});

const day = (inputTokens: number, over: Partial<DayUsage> = {}): DayUsage => ({
  orgId: 'org_1',
  model: 'titler-1',
  day: '2025-06-03',
  inputTokens,
  ...over,
});
const charge = (cents: number, over: Partial<OwedCharge> = {}): OwedCharge => ({
  orgId: 'org_1',
  model: 'titler-1',
  day: '2025-06-03',
  cents,
  ...over,
});

describe('decideCharges: post what has not yet been charged', () => {
  it('a day with 1 input token costs 1 cent', () => {
    expect(decideCharges([day(1)], [])).toEqual([charge(1)]);
  });

  it('a day with 150,000 tokens over many requests costs 2 cents, posted once', () => {
    const requests = Array.from({ length: 150 }, () => 1_000);
    const rollup = day(requests.reduce((a, b) => a + b, 0));
    expect(decideCharges([rollup], [])).toEqual([charge(2)]);
  });

  it('posting twice posts nothing new', () => {
    const first = decideCharges([day(150_000)], []);
    expect(decideCharges([day(150_000)], first)).toEqual([]);
  });

  it('posting during the day and again later posts the difference', () => {
    const morning = decideCharges([day(50_000)], []);
    expect(morning).toEqual([charge(1)]);
    const evening = decideCharges([day(150_000)], morning);
    expect(evening).toEqual([charge(1)]);
    expect(decideCharges([day(150_000)], [...morning, ...evening])).toEqual([]);
  });

  it.each([
    { name: 'zero tokens', rollups: [day(0)], posted: [], charges: [] },
    { name: 'nothing rolled up', rollups: [], posted: [charge(3)], charges: [] },
    {
      name: 'a day charged more than its price posts nothing',
      rollups: [day(1)],
      posted: [charge(5)],
      charges: [],
    },
    {
      name: 'each org, model and day is priced on its own',
      rollups: [
        day(1),
        day(1, { orgId: 'org_2' }),
        day(1, { model: 'titler-2' }),
        day(200_000, { day: '2025-06-04' }),
      ],
      posted: [charge(1, { orgId: 'org_2' }), charge(1, { day: '2025-06-04' })],
      charges: [charge(1), charge(1, { model: 'titler-2' }), charge(1, { day: '2025-06-04' })],
    },
    {
      name: 'charges for a day are summed',
      rollups: [day(350_000)],
      posted: [charge(1), charge(1), charge(1)],
      charges: [charge(1)],
    },
    {
      name: 'keys do not collide when ids contain separators',
      rollups: [day(1, { orgId: 'a|b', model: 'c' })],
      posted: [charge(1, { orgId: 'a', model: 'b|c' })],
      charges: [charge(1, { orgId: 'a|b', model: 'c' })],
    },
  ])('$name', ({ rollups, posted, charges }) => {
    expect(decideCharges(rollups, posted)).toEqual(charges);
  });

  it('refuses two rollups for one org/model/day rather than charging twice', () => {
    expect(() => decideCharges([day(1), day(2)], [])).toThrow(/two rollups/);
  });
});
