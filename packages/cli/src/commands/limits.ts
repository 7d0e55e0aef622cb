import { keyedClient } from '../access.ts';
import type { Context } from '../context.ts';
import { Failure } from '../failures.ts';

// `orrery limits`: GET /api/billing/summary, the org's balance and what it was charged, by model.

interface Charge {
  model: string;
  day: string;
  cents: number;
  requests: number;
}

interface Summary {
  balance_cents: number;
  credit_granted_cents: number;
  charged_cents: number;
  charges: Charge[];
}

function summaryOf(body: unknown): Summary {
  const data = (body as { data?: Partial<Summary> } | undefined)?.data;
  if (
    typeof data?.balance_cents !== 'number' ||
    typeof data.credit_granted_cents !== 'number' ||
    typeof data.charged_cents !== 'number' ||
    !Array.isArray(data.charges)
  )
    throw new Failure('The API answered GET /api/billing/summary without a balance: check --api-url.');
  return data as Summary;
}

/** `$12.34`, `-$0.05`: cents as dollars. */
export const dollars = (cents: number) => `${cents < 0 ? '-' : ''}$${(Math.abs(cents) / 100).toFixed(2)}`;

const plural = (count: number, one: string) =>
  `${count.toLocaleString('en')} ${one}${count === 1 ? '' : 's'}`;

export async function limits(context: Context, options: { json?: boolean }): Promise<void> {
  const answer = await (await keyedClient(context)).get('/api/billing/summary');
  const { output } = context;
  if (options.json) return output.answer(answer.text);
  const summary = summaryOf(answer.body);
  const { palette } = output;
  const balance = dollars(summary.balance_cents);
  output.result(
    `balance ${summary.balance_cents > 0 ? palette.strong(balance) : palette.failed(balance)} ` +
      `(credit granted ${dollars(summary.credit_granted_cents)}, charged ${dollars(summary.charged_cents)})`,
  );
  const byModel = new Map<string, { cents: number; requests: number; days: number }>();
  for (const charge of summary.charges) {
    const total = byModel.get(charge.model) ?? { cents: 0, requests: 0, days: 0 };
    byModel.set(charge.model, {
      cents: total.cents + charge.cents,
      requests: total.requests + charge.requests,
      days: total.days + 1,
    });
  }
  for (const [model, total] of byModel)
    output.result(
      `${model}: ${dollars(total.cents)} for ${plural(total.requests, 'request')} over ${plural(total.days, 'day')}`,
    );
}
