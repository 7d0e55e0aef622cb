import type { DayUsage } from '../domain/billing/charges.ts';
import type { DayCharged, DayTotals } from '../domain/billing/reconcile.ts';
import type { PgClient, PgPool } from '../platform/postgres.ts';

// The Postgres reads shared by the billing jobs: the usage rollups (projections/usage-postgres.ts)
// and the charges posted (projections/org.ts), per org, model and UTC day. `orgIds` narrows them
// to some orgs; absent, every org. Days are `YYYY-MM-DD` text, as the domain writes them.

export interface Scope {
  orgIds?: readonly string[];
  /** First and last UTC day, inclusive. */
  from?: string;
  to?: string;
}

const scopeParams = (scope: Scope) => [scope.orgIds ?? null, scope.from ?? null, scope.to ?? null];
const inScope = `($1::text[] IS NULL OR org_id = ANY($1::text[]))
  AND ($2::date IS NULL OR day >= $2::date) AND ($3::date IS NULL OR day <= $3::date)`;

type Queryable = PgPool | PgClient;

export async function readRollups(db: Queryable, scope: Scope = {}): Promise<DayTotals[]> {
  const result = await db.query<{
    org_id: string;
    model: string;
    day: string;
    requests: number;
    input_tokens: number;
    output_tokens: number;
  }>(
    `SELECT org_id, model, to_char(day, 'YYYY-MM-DD') AS day, requests, input_tokens, output_tokens
       FROM usage_daily WHERE ${inScope}`,
    scopeParams(scope),
  );
  return result.rows.map((row) => ({
    orgId: row.org_id,
    model: row.model,
    day: row.day,
    requests: row.requests,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
  }));
}

export async function readDayUsage(db: Queryable, scope: Scope = {}): Promise<DayUsage[]> {
  return (await readRollups(db, scope)).map(({ orgId, model, day, inputTokens }) => ({
    orgId,
    model,
    day,
    inputTokens,
  }));
}

export async function readCharged(db: Queryable, scope: Scope = {}): Promise<DayCharged[]> {
  const result = await db.query<{ org_id: string; model: string; day: string; cents: number }>(
    `SELECT org_id, model, to_char(day, 'YYYY-MM-DD') AS day, sum(cents)::bigint AS cents
       FROM charges WHERE ${inScope} GROUP BY org_id, model, day`,
    scopeParams(scope),
  );
  return result.rows.map((row) => ({ orgId: row.org_id, model: row.model, day: row.day, cents: row.cents }));
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
    `INSERT INTO usage_daily (org_id, model, day, requests, input_tokens, output_tokens, fallbacks)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (org_id, model, day) DO UPDATE SET requests = EXCLUDED.requests,
       input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens,
       fallbacks = EXCLUDED.fallbacks`,
    [
      totals.orgId,
      totals.model,
      totals.day,
      totals.requests,
      totals.inputTokens,
      totals.outputTokens,
      totals.fallbacks,
    ],
  );
}
