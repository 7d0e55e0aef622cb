// The prices (spec 000, Limits: Price; issue 16: time on hardware) and their rounding (Billing
// rules 2): a day's use of one model, or of one hardware size, is priced together and rounded up
// to a whole cent once, never per request or per run. Integer arithmetic only (bigint), since this
// is money.
import type { SandboxSize } from '../sandboxes/events.ts';

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

/**
 * What one request's input tokens cost in cents, unrounded (`cost_cents` of a logged request): a
 * fraction of a cent is shown, never charged, since only a day is rounded (`dayPriceCents`). So a
 * number, not bigint: it is for reading, not for adding up.
 */
export function requestPriceCents(inputTokens: number): number {
  return (inputTokens * Number(centsPerMillionInputTokens)) / Number(million);
}

/** Hardware is priced in micro-dollars (10,000 to the cent), so a second of the smallest size is a whole number. */
export const microdollarsPerCent = 10_000;

/** Micro-dollars as the wire's cents (`0.002` for 20), exact to four places. */
export const centsOfMicrodollars = (microdollars: number) => microdollars / microdollarsPerCent;

/**
 * Time on hardware (runs, issue 16), per second of each size: the one price table, listed by
 * `GET /api/catalog`. Twice the price for each step, as each step doubles cores and memory
 * (sandbox-runtime/limits.ts): small is 0.002 cents a second, 7.2 cents an hour.
 */
export const hardwareMicrodollarsPerSecond = {
  small: 20,
  standard: 40,
  large: 80,
  xl: 160,
} as const satisfies Record<SandboxSize, number>;

/**
 * Run time is billed beside the models, under a meter name in the `model` column of the usage
 * rollups and charges (`run:small`…), so the posting job, reconciliation and the billing summary
 * treat it as one more thing used per org and UTC day.
 */
const meterPrefix = 'run:';

export function hardwareMeter(size: SandboxSize): string {
  return `${meterPrefix}${size}`;
}

/** The size a meter name bills, or undefined for a model's name. */
export function meteredSize(model: string): SandboxSize | undefined {
  if (!model.startsWith(meterPrefix)) return undefined;
  const size = model.slice(meterPrefix.length);
  return Object.hasOwn(hardwareMicrodollarsPerSecond, size) ? (size as SandboxSize) : undefined;
}

/** Seconds of a size in micro-dollars, exact. */
export function hardwareMicrodollars(size: SandboxSize, seconds: number): number {
  if (!Number.isSafeInteger(seconds) || seconds < 0)
    throw new RangeError(`seconds must be a non-negative safe integer, got ${seconds}`);
  return seconds * hardwareMicrodollarsPerSecond[size];
}

/** A day's seconds of one size in whole cents, rounded up once. */
export function hardwareDayPriceCents(size: SandboxSize, seconds: number): number {
  const micro = BigInt(hardwareMicrodollars(size, seconds));
  const perCent = BigInt(microdollarsPerCent);
  return Number((micro + perCent - 1n) / perCent);
}

/** What one org's day of one model or meter costs, in whole cents: tokens for a model, seconds for a meter. */
export function usageDayPriceCents(usage: { model: string; inputTokens: number; seconds?: number }): number {
  const size = meteredSize(usage.model);
  return size === undefined
    ? dayPriceCents(usage.inputTokens)
    : hardwareDayPriceCents(size, usage.seconds ?? 0);
}
