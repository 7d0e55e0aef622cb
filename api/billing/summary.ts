import { z } from 'zod';
import type { PgPool } from '../../platform/postgres.ts';

// The billing summary of one org (spec 000, Billing page; the command-line tool's
// `limits --json`), read from Postgres: the balance (credit granted − charges posted, integer
// cents) and, per model and UTC day, the usage rollup and what was charged for it so far.

const day = z.iso.date();

export const summaryQuery = z.strictObject({
  /** First UTC day shown, inclusive. */
  from: day.optional(),
  /** Last UTC day shown, inclusive. */
  to: day.optional(),
});

export const billingSummary = z.object({
  data: z.object({
    org_id: z.string(),
    balance_cents: z.number().int(),
    credit_granted_cents: z.number().int(),
    charged_cents: z.number().int(),
    charges: z.array(
      z.object({
        model: z.string(),
        day: z.string(),
        cents: z.number().int(),
        requests: z.number().int(),
        input_tokens: z.number().int(),
        output_tokens: z.number().int(),
      }),
    ),
  }),
});
export type BillingSummary = z.infer<typeof billingSummary>;

interface DayRow {
  model: string;
  day: string;
  cents: number;
  requests: number;
  input_tokens: number;
  output_tokens: number;
}

export async function readBillingSummary(
  pool: PgPool,
  orgId: string,
  range: z.infer<typeof summaryQuery>,
): Promise<BillingSummary> {
  const totals = await pool.query<{ granted: number; charged: number }>(
    `SELECT (SELECT coalesce(sum(amount_cents), 0)::bigint FROM credit_grants WHERE org_id = $1) AS granted,
            (SELECT coalesce(sum(cents), 0)::bigint FROM charges WHERE org_id = $1) AS charged`,
    [orgId],
  );
  const days = await pool.query<DayRow>(
    `WITH charged AS (
       SELECT model, day, sum(cents)::bigint AS cents FROM charges WHERE org_id = $1 GROUP BY model, day
     ), used AS (
       SELECT model, day, requests, input_tokens, output_tokens FROM usage_daily WHERE org_id = $1
     )
     SELECT model, to_char(day, 'YYYY-MM-DD') AS day, coalesce(charged.cents, 0)::bigint AS cents,
            coalesce(used.requests, 0)::bigint AS requests,
            coalesce(used.input_tokens, 0)::bigint AS input_tokens,
            coalesce(used.output_tokens, 0)::bigint AS output_tokens
       FROM charged FULL JOIN used USING (model, day)
      WHERE ($2::date IS NULL OR day >= $2::date) AND ($3::date IS NULL OR day <= $3::date)
      ORDER BY day DESC, model`,
    [orgId, range.from ?? null, range.to ?? null],
  );
  const { granted = 0, charged = 0 } = totals.rows[0] ?? {};
  return {
    data: {
      org_id: orgId,
      balance_cents: granted - charged,
      credit_granted_cents: granted,
      charged_cents: charged,
      charges: days.rows,
    },
  };
}
