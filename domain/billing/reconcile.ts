// Reconciliation (jobs/reconcile.ts): each org/model/UTC day recomputed from the raw request log
// is compared with the Postgres rollup and with the charges posted for it. Pure: the job reads
// the three sources and prints what this returns.
import { chargedByDay, type DayCharged } from './charges.ts';
import { type OrgModelDay, orgModelDayKey } from './day.ts';
import { meteredSize, usageDayPriceCents } from './price.ts';

export interface DayTotals extends OrgModelDay {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  /** Seconds on hardware, for a run meter (price.ts); absent or 0 for a model. */
  seconds?: number;
}

/** A meter's counts carry its seconds; a model's have none to carry. */
type Counts = Pick<DayTotals, 'requests' | 'inputTokens' | 'outputTokens' | 'seconds'>;

export type Difference =
  /** The rollup does not hold what the log holds (a missing, extra or double-counted event). */
  | (OrgModelDay & { kind: 'rollup'; log: Counts; rollup: Counts })
  /** More was charged than the log's tokens cost; never posted by the job, so always wrong. */
  | (OrgModelDay & { kind: 'overcharged'; priceCents: number; chargedCents: number })
  /** A day before today is not fully charged: the posting job has not run since it ended. */
  | (OrgModelDay & { kind: 'uncharged'; priceCents: number; chargedCents: number });

const none: Counts = { requests: 0, inputTokens: 0, outputTokens: 0 };

function byKey<T extends OrgModelDay>(rows: readonly T[]): Map<string, T> {
  return new Map(rows.map((row) => [orgModelDayKey(row), row]));
}

function counts(row: Counts | undefined, metered: boolean): Counts {
  const { requests, inputTokens, outputTokens, seconds = 0 } = row ?? none;
  return metered ? { requests, inputTokens, outputTokens, seconds } : { requests, inputTokens, outputTokens };
}

const sameCounts = (a: Counts, b: Counts) =>
  a.requests === b.requests &&
  a.inputTokens === b.inputTokens &&
  a.outputTokens === b.outputTokens &&
  (a.seconds ?? 0) === (b.seconds ?? 0);

/**
 * The differences between the log, the rollups and the charges, ordered by org, model and day.
 * Today's day may be charged less than its price (the job posts the difference later), so
 * `uncharged` is reported only for days before `today`.
 */
export function compareDays(
  log: readonly DayTotals[],
  rollups: readonly DayTotals[],
  charged: readonly DayCharged[],
  today: string,
): Difference[] {
  const logs = byKey(log);
  const rolled = byKey(rollups);
  const charges = chargedByDay(charged);
  const days = new Map<string, OrgModelDay>();
  for (const { orgId, model, day } of [...log, ...rollups, ...charged])
    days.set(orgModelDayKey({ orgId, model, day }), { orgId, model, day });
  const differences: Difference[] = [];
  for (const key of [...days.keys()].sort()) {
    const at = days.get(key)!;
    const metered = meteredSize(at.model) !== undefined;
    const fromLog = counts(logs.get(key), metered);
    const fromRollup = counts(rolled.get(key), metered);
    if (!sameCounts(fromLog, fromRollup))
      differences.push({ ...at, kind: 'rollup', log: fromLog, rollup: fromRollup });
    const priceCents = usageDayPriceCents({ model: at.model, ...fromLog });
    const chargedCents = charges.get(key) ?? 0;
    if (chargedCents > priceCents) differences.push({ ...at, kind: 'overcharged', priceCents, chargedCents });
    else if (chargedCents < priceCents && at.day < today)
      differences.push({ ...at, kind: 'uncharged', priceCents, chargedCents });
  }
  return differences;
}

const describeCounts = (c: Counts) =>
  `${c.requests} requests, ${c.inputTokens} input and ${c.outputTokens} output tokens` +
  (c.seconds === undefined ? '' : `, ${c.seconds} seconds`);

/** One line per difference, as the job prints it. */
export function describeDifference(d: Difference): string {
  const at = `${d.orgId} ${d.model} ${d.day}`;
  switch (d.kind) {
    case 'rollup':
      return `rollup ${at}: the log has ${describeCounts(d.log)}; the rollup has ${describeCounts(d.rollup)}`;
    case 'overcharged':
      return `overcharged ${at}: the log's tokens cost ${d.priceCents} cents; ${d.chargedCents} cents were charged`;
    case 'uncharged':
      return `uncharged ${at}: the log's tokens cost ${d.priceCents} cents; only ${d.chargedCents} cents were charged`;
    default: {
      const unhandled: never = d;
      return unhandled;
    }
  }
}
