// How numbers read on the dashboard's pages, as pure functions (tested in test/data.unit.test.ts).

const integer = new Intl.NumberFormat('en-US');

/** Cents as dollars, to the cent: 1234 → `$12.34`, -5 → `-$0.05` (a fraction rounds: 0.75 → `$0.01`). */
export function dollars(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.round(Math.abs(cents));
  return `${sign}$${integer.format(Math.floor(abs / 100))}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * What input tokens cost at a price in cents per million, in cents with the digits it needs
 * (a Playground request costs a small fraction of a cent): 12 at 100 → `0.0012¢`.
 */
export function requestCost(inputTokens: number, centsPerMillion: number): string {
  return fractionOfCents((inputTokens * centsPerMillion) / 1_000_000);
}

/** Cents with the digits they need, as one request costs before a day's rounding: `0.0012¢`, `250.00¢`. */
export function fractionOfCents(cents: number): string {
  if (cents === 0) return '0¢';
  if (cents >= 1) return `${cents.toFixed(2)}¢`;
  return `${Number(cents.toPrecision(2))}¢`;
}

export const count = (value: number) => integer.format(value);

/** What the pages say where the API answers no amount (null): never `$0`, which would be a figure. */
export const none = 'none';

const toTheCent = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const subCent = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  maximumSignificantDigits: 6,
});
const priceDigits = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 6,
});

/**
 * An amount of USD (a span's or a trace's cost): to the cent from a cent up (`$1.23`), and below
 * a cent with up to 6 significant digits, as a generation often costs (`$0.00027`, never `$0.00`);
 * `none` for null, the API's word for no cost (no price for the model), which is not `$0`.
 */
export function usd(value: number | null): string {
  if (value === null) return none;
  if (value === 0) return '$0.00';
  return Math.abs(value) < 0.01 ? subCent.format(value) : toTheCent.format(value);
}

/** A price in USD per million tokens, with the digits it was set with: `$2.50`, `$0.075`, `$0.0001`. */
export function usdPrice(value: number): string {
  if (value !== 0 && Math.abs(value) < 0.01) return subCent.format(value);
  return priceDigits.format(value);
}

/** A duration in milliseconds: `840 ms`, `1.25 s`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Number(ms.toFixed(ms < 10 ? 2 : 0))} ms`;
  return `${Number((ms / 1000).toFixed(2))} s`;
}
