import type { Account } from '../domain/billing/balance.ts';
import type { DayCharged, DayUsage } from '../domain/billing/charges.ts';
import type { DayTotals } from '../domain/billing/reconcile.ts';
import type { PgClient, PgPool } from '../platform/postgres.ts';

// The billing read model in Postgres: the usage rollups (projections/usage-postgres.ts), the
// credit granted and the charges posted (projections/org.ts), per org, model and UTC day. Read
// by the billing jobs (posting, reconciliation) and by the billing summary (api/billing). Days
// are `YYYY-MM-DD` text, as the domain writes them (domain/billing/day.ts).

/** Which orgs and UTC days a billing read covers; each field absent means all of them. */
export interface BillingFilter {
  orgIds?: readonly string[];
  /** First and last UTC day, inclusive. */
  from?: string;
  to?: string;
}

const filterParams = (filter: BillingFilter) => [
  filter.orgIds ?? null,
  filter.from ?? null,
  filter.to ?? null,
];
const inFilter = `($1::text[] IS NULL OR org_id = ANY($1::text[]))
  AND ($2::date IS NULL OR day >= $2::date) AND ($3::date IS NULL OR day <= $3::date)`;
const dayText = `to_char(day, 'YYYY-MM-DD')`;

type Queryable = PgPool | PgClient;

export async function readRollups(db: Queryable, filter: BillingFilter = {}): Promise<DayTotals[]> {
  const result = await db.query<{
    org_id: string;
    model: string;
    day: string;
    requests: number;
    input_tokens: number;
    output_tokens: number;
    seconds: number;
  }>(
    `SELECT org_id, model, ${dayText} AS day, requests, input_tokens, output_tokens, seconds
       FROM usage_daily WHERE ${inFilter}`,
    filterParams(filter),
  );
  return result.rows.map((row) => ({
    orgId: row.org_id,
    model: row.model,
    day: row.day,
    requests: row.requests,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    seconds: row.seconds,
  }));
}

export async function readDayUsage(db: Queryable, filter: BillingFilter = {}): Promise<DayUsage[]> {
  return (await readRollups(db, filter)).map(({ orgId, model, day, inputTokens, seconds }) => ({
    orgId,
    model,
    day,
    inputTokens,
    seconds,
  }));
}

export async function readCharged(db: Queryable, filter: BillingFilter = {}): Promise<DayCharged[]> {
  const result = await db.query<{ org_id: string; model: string; day: string; cents: number }>(
    `SELECT org_id, model, ${dayText} AS day, sum(cents)::bigint AS cents
       FROM charges WHERE ${inFilter} GROUP BY org_id, model, day`,
    filterParams(filter),
  );
  return result.rows.map((row) => ({ orgId: row.org_id, model: row.model, day: row.day, cents: row.cents }));
}

/** How many of these charges the read model holds. */
export async function countCharges(db: Queryable, chargeIds: readonly string[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM charges WHERE charge_id = ANY($1::text[])',
    [chargeIds],
  );
  return rows[0]?.n ?? 0;
}

/** Sets one rollup to the log's totals (reconciliation's repair); a day not in the log is removed. */
export async function writeRollup(
  client: PgClient,
  totals: DayTotals & { fallbacks: number },
  inLog: boolean,
): Promise<void> {
  if (!inLog) {
    await client.query('DELETE FROM usage_daily WHERE org_id = $1 AND model = $2 AND day = $3', [
      totals.orgId,
      totals.model,
      totals.day,
    ]);
    return;
  }
  await client.query(
    `INSERT INTO usage_daily (org_id, model, day, requests, input_tokens, output_tokens, fallbacks, seconds)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (org_id, model, day) DO UPDATE SET requests = EXCLUDED.requests,
       input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens,
       fallbacks = EXCLUDED.fallbacks, seconds = EXCLUDED.seconds`,
    [
      totals.orgId,
      totals.model,
      totals.day,
      totals.requests,
      totals.inputTokens,
      totals.outputTokens,
      totals.fallbacks,
      totals.seconds ?? 0,
    ],
  );
}

/** An org's credit granted and charges posted, the two sums its balance is made of. */
export async function readAccount(db: Queryable, orgId: string): Promise<Account> {
  const result = await db.query<{ granted: number; charged: number }>(
    `SELECT (SELECT coalesce(sum(amount_cents), 0)::bigint FROM credit_grants WHERE org_id = $1) AS granted,
            (SELECT coalesce(sum(cents), 0)::bigint FROM charges WHERE org_id = $1) AS charged`,
    [orgId],
  );
  const { granted = 0, charged = 0 } = result.rows[0] ?? {};
  return { creditGrantedCents: granted, chargedCents: charged };
}

/** One model (or run meter) on one UTC day of an org: the usage rollup and the cents charged for it so far. */
export interface OrgDay {
  model: string;
  day: string;
  cents: number;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  seconds: number;
}

/**
 * An org's days with usage or charges, newest day first, then by model; `from` and `to` (UTC
 * days, inclusive) narrow them.
 */
export async function readOrgDays(
  db: Queryable,
  orgId: string,
  range: Pick<BillingFilter, 'from' | 'to'>,
): Promise<OrgDay[]> {
  const result = await db.query<{
    model: string;
    day: string;
    cents: number;
    requests: number;
    input_tokens: number;
    output_tokens: number;
    seconds: number;
  }>(
    `WITH charged AS (
       SELECT model, day, sum(cents)::bigint AS cents FROM charges WHERE org_id = $1 GROUP BY model, day
     ), used AS (
       SELECT model, day, requests, input_tokens, output_tokens, seconds FROM usage_daily WHERE org_id = $1
     )
     SELECT model, ${dayText} AS day, coalesce(charged.cents, 0)::bigint AS cents,
            coalesce(used.requests, 0)::bigint AS requests,
            coalesce(used.input_tokens, 0)::bigint AS input_tokens,
            coalesce(used.output_tokens, 0)::bigint AS output_tokens,
            coalesce(used.seconds, 0)::bigint AS seconds
       FROM charged FULL JOIN used USING (model, day)
      WHERE ($2::date IS NULL OR day >= $2::date) AND ($3::date IS NULL OR day <= $3::date)
      ORDER BY day DESC, model`,
    [orgId, range.from ?? null, range.to ?? null],
  );
  return result.rows.map((row) => ({
    model: row.model,
    day: row.day,
    cents: row.cents,
    requests: row.requests,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    seconds: row.seconds,
  }));
}
