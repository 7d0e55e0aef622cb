// The price (spec 000, Limits: Price) and its rounding (Billing rules 2): a day's input tokens are
// priced together and rounded up to a whole cent once, never per request. Integer arithmetic
// only (bigint), since this is money.

/** 0.10 USD per million input tokens = 10 cents per 1,000,000 tokens; output tokens are free. */
export const centsPerMillionInputTokens = 10n;
const million = 1_000_000n;

/** A day's price in whole cents: ceil(tokens × 10 / 1,000,000); zero tokens cost nothing. */
export function dayPriceCents(inputTokens: number): number {
  if (!Number.isSafeInteger(inputTokens) || inputTokens < 0)
    throw new RangeError(`input tokens must be a non-negative safe integer, got ${inputTokens}`);
  const numerator = BigInt(inputTokens) * centsPerMillionInputTokens;
  return Number((numerator + million - 1n) / million);
}
