import type { Charge } from '../api/types.ts';

// The Billing chart's rows: the last 30 UTC days up to today, each with the cents of each model
// (0 where a model had none), so the bars stand on a full axis of days. Pure (test/data.unit.test.ts).

const dayMs = 24 * 60 * 60 * 1000;

/** `YYYY-MM-DD` of the UTC days from `days - 1` days before `today` to `today`. */
export function lastUtcDays(today: Date, days = 30): string[] {
  const end = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  return Array.from({ length: days }, (_, i) =>
    new Date(end - (days - 1 - i) * dayMs).toISOString().slice(0, 10),
  );
}

export type ChartRow = { day: string } & Record<string, number | string>;

export function chartRows(charges: readonly Charge[], today: Date): { rows: ChartRow[]; models: string[] } {
  const days = lastUtcDays(today);
  const shown = charges.filter((charge) => charge.day >= days[0]! && charge.day <= days.at(-1)!);
  const models = [...new Set(shown.map((charge) => charge.model))].sort();
  const rows = days.map((day) => {
    const row: ChartRow = { day };
    for (const model of models) row[model] = 0;
    for (const charge of shown)
      if (charge.day === day) row[charge.model] = Number(row[charge.model]) + charge.cents;
    return row;
  });
  return { rows, models };
}
