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
  const cents = (inputTokens * centsPerMillion) / 1_000_000;
  if (cents === 0) return '0¢';
  if (cents >= 1) return `${cents.toFixed(2)}¢`;
  return `${Number(cents.toPrecision(2))}¢`;
}

export const count = (value: number) => integer.format(value);

/** A duration in milliseconds: `840 ms`, `1.25 s`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Number(ms.toFixed(ms < 10 ? 2 : 0))} ms`;
  return `${Number((ms / 1000).toFixed(2))} s`;
}
