// Pricing and charge posting (spec 000, Limits: Price, and Billing rules). Tokens are totalled
// per org, per model, per UTC day; the day's total is priced, rounded up to a whole cent once,
// and whatever has not yet been charged for that day is posted. Integer arithmetic only
// (bigint), since this is money.

/** 0.10 USD per million input tokens = 10 cents per 1,000,000 tokens; output tokens are free. */
export const centsPerMillionInputTokens = 10n;
const million = 1_000_000n;

/** A day's usage rollup: the input tokens of one org on one model on one UTC day. */
export interface DayUsage {
  orgId: string;
  model: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  inputTokens: number;
}

/** A charge owed for an org/model/day: decided from usage, then posted as `ChargePosted`. */
export interface OwedCharge {
  orgId: string;
  model: string;
  day: string;
  cents: number;
}

/** The UTC day (`YYYY-MM-DD`) of a time given in milliseconds since the epoch. */
export function utcDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** A day's price in whole cents: ceil(tokens × 10 / 1,000,000); zero tokens cost nothing. */
export function dayPriceCents(inputTokens: number): number {
  if (!Number.isSafeInteger(inputTokens) || inputTokens < 0)
    throw new RangeError(`input tokens must be a non-negative safe integer, got ${inputTokens}`);
  const numerator = BigInt(inputTokens) * centsPerMillionInputTokens;
  return Number((numerator + million - 1n) / million);
}

function dayKey(row: { orgId: string; model: string; day: string }): string {
  return JSON.stringify([row.orgId, row.model, row.day]);
}

/**
 * The charges to post: for each day rollup, its price less what was already posted for that
 * org/model/day; nothing when nothing new is owed. A day already charged more than its price
 * (tokens never decrease, so this means bad input) posts nothing: refunds are not decided here.
 * Rollups are one row per org/model/day; a repeated key is refused rather than double charged.
 */
export function decideCharges(rollups: readonly DayUsage[], posted: readonly OwedCharge[]): OwedCharge[] {
  const charged = new Map<string, number>();
  for (const charge of posted) charged.set(dayKey(charge), (charged.get(dayKey(charge)) ?? 0) + charge.cents);
  const seen = new Set<string>();
  const charges: OwedCharge[] = [];
  for (const usage of rollups) {
    const key = dayKey(usage);
    if (seen.has(key)) throw new Error(`two rollups for one org/model/day: ${key}`);
    seen.add(key);
    const cents = dayPriceCents(usage.inputTokens) - (charged.get(key) ?? 0);
    if (cents > 0) charges.push({ orgId: usage.orgId, model: usage.model, day: usage.day, cents });
  }
  return charges;
}
