// Owed charges (spec 000, Billing rules 2): each org/model/UTC day's usage is priced
// (price.ts) and whatever has not yet been charged for it is owed, then posted by jobs/
// as a ChargePosted event on the org stream with an id derived from what it charges.
import { createHash } from 'node:crypto';
import { type OrgModelDay, orgModelDayKey } from './day.ts';
import { usageDayPriceCents } from './price.ts';

/** A day's usage rollup: the input tokens of one org on one model (or the seconds on one hardware meter) on one UTC day. */
export interface DayUsage extends OrgModelDay {
  inputTokens: number;
  /** Seconds on hardware, for a run meter (`run:small`…; price.ts); absent or 0 for a model. */
  seconds?: number;
}

/** A charge owed for an org/model/day: decided from usage, then posted as `ChargePosted`. */
export interface OwedCharge extends OrgModelDay {
  cents: number;
}

/** Cents already posted for an org/model/day, as the charges read model holds them. */
export interface DayCharged extends OrgModelDay {
  cents: number;
}

/** The cents charged per org/model/day (orgModelDayKey), the charges of one day summed. */
export function chargedByDay(charges: readonly DayCharged[]): Map<string, number> {
  const charged = new Map<string, number>();
  for (const charge of charges) {
    const key = orgModelDayKey(charge);
    charged.set(key, (charged.get(key) ?? 0) + charge.cents);
  }
  return charged;
}

/**
 * The charges to post: for each day rollup, its price less what was already posted for that
 * org/model/day; nothing when nothing new is owed. A day already charged more than its price
 * (tokens never decrease, so this means bad input) posts nothing: refunds are not decided here.
 * Rollups are one row per org/model/day; a repeated key is refused rather than double charged.
 */
export function decideCharges(rollups: readonly DayUsage[], posted: readonly DayCharged[]): OwedCharge[] {
  const charged = chargedByDay(posted);
  const seen = new Set<string>();
  const charges: OwedCharge[] = [];
  for (const usage of rollups) {
    const key = orgModelDayKey(usage);
    if (seen.has(key)) throw new Error(`two rollups for one org/model/day: ${key}`);
    seen.add(key);
    const cents = usageDayPriceCents(usage) - (charged.get(key) ?? 0);
    if (cents > 0) charges.push({ orgId: usage.orgId, model: usage.model, day: usage.day, cents });
  }
  return charges;
}

/**
 * A charge's id is derived from what it charges: the org, model and day, and the day's total
 * charged once it is posted. Two runs of the posting job that decide the same charge give it the
 * same id, so the org decider and the projection keep one (idempotence by chargeId).
 */
export function chargeIdFor(charge: OwedCharge, chargedBeforeCents: number): string {
  const totalAfter = chargedBeforeCents + charge.cents;
  const digest = createHash('sha256')
    .update(JSON.stringify([charge.orgId, charge.model, charge.day, totalAfter]))
    .digest('hex');
  return `chg_${digest.slice(0, 32)}`;
}
