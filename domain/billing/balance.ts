// An org's balance and the credit check (spec 000, Billing rules 3). The org's folded state
// (domain/orgs/org.ts) and the billing summary's totals both hold the two sums it is made of.
import type { OrgState } from '../orgs/org.ts';

/** What the balance is made of: credit granted and charges posted, integer cents. */
export type Account = Pick<OrgState, 'creditGrantedCents' | 'chargedCents'>;

/** What the org can still spend, in integer cents: credit granted less charges posted. */
export function balanceCents(account: Account | undefined): number {
  return account ? account.creditGrantedCents - account.chargedCents : 0;
}

/** A request needs credit (spec 000, Billing rules 3): an org at zero or below gets 402. */
export function hasCredit(account: Account | undefined): boolean {
  return balanceCents(account) > 0;
}
