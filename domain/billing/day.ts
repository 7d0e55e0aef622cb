// The unit billing counts in (spec 000, Billing rules 2): tokens are totalled per org, per model,
// per UTC day. The usage rollup, the posting job, reconciliation and the summary all key by it.

/** One org's use of one model on one UTC day. */
export interface OrgModelDay {
  orgId: string;
  model: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
}

/** The UTC day (`YYYY-MM-DD`) of a time given in milliseconds since the epoch. */
export function utcDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/**
 * The org/model/day as one map key. JSON, so ids containing any separator cannot collide, and
 * keys sort by org, then model, then day.
 */
export function orgModelDayKey(row: OrgModelDay): string {
  return JSON.stringify([row.orgId, row.model, row.day]);
}
