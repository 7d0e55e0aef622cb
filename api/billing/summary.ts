import { z } from 'zod';
import { balanceCents } from '../../domain/billing/balance.ts';
import { meteredSize } from '../../domain/billing/price.ts';
import type { PgPool } from '../../platform/postgres.ts';
import { readAccount, readOrgDays } from '../../stores/billing.ts';

// The billing summary of one org (spec 000, Billing page; the command-line tool's
// `limits --json`), read from Postgres (stores/billing.ts): the balance (domain/billing's rule,
// integer cents) and, per model and UTC day, the usage rollup and what was charged for it so far.
// A run's time on hardware shows as one more model, its size's meter (`run:small`…), with its
// seconds (domain/billing/price.ts).

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
        seconds: z
          .number()
          .int()
          .optional()
          .describe('seconds on hardware, on the rows of a run meter (`model` `run:<size>`) only'),
      }),
    ),
  }),
});
export type BillingSummary = z.infer<typeof billingSummary>;

export async function readBillingSummary(
  pool: PgPool,
  orgId: string,
  range: z.infer<typeof summaryQuery>,
): Promise<BillingSummary> {
  const account = await readAccount(pool, orgId);
  const days = await readOrgDays(pool, orgId, range);
  return {
    data: {
      org_id: orgId,
      balance_cents: balanceCents(account),
      credit_granted_cents: account.creditGrantedCents,
      charged_cents: account.chargedCents,
      charges: days.map((row) => ({
        model: row.model,
        day: row.day,
        cents: row.cents,
        requests: row.requests,
        input_tokens: row.inputTokens,
        output_tokens: row.outputTokens,
        ...(meteredSize(row.model) === undefined ? {} : { seconds: row.seconds }),
      })),
    },
  };
}
