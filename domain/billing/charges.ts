// Charges on the org stream (spec 000, Billing rules) and the balance they leave. Prices and the
// amount owed per org/model/UTC day are decided by domain/inference/pricing.ts; this file names
// the resulting ChargePosted events and reads the balance from an org's folded state.
import { createHash } from 'node:crypto';
import type { OwedCharge } from '../inference/pricing.ts';
import type { OrgState } from '../orgs/org.ts';

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

/** What the org can still spend, in integer cents: credit granted less charges posted. */
export function balanceCents(org: Pick<OrgState, 'creditGrantedCents' | 'chargedCents'> | undefined): number {
  return org ? org.creditGrantedCents - org.chargedCents : 0;
}

/** A request needs credit (spec 000, Billing rules 3): an org at zero or below gets 402. */
export function hasCredit(org: Pick<OrgState, 'creditGrantedCents' | 'chargedCents'> | undefined): boolean {
  return balanceCents(org) > 0;
}
