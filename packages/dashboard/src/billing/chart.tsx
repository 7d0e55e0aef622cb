import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Charge } from '../api/types.ts';
import { seriesColour } from '../colours.ts';
import { dollars } from '../format.ts';
import { chartRows } from './days.ts';

/** The last 30 UTC days' charges, a bar per day stacked by model; the table below has the numbers. */
export function ChargesChart({ charges }: { charges: readonly Charge[] }) {
  const { rows, models } = chartRows(charges, new Date());
  if (models.length === 0) return <p>No charges in the last 30 days.</p>;
  const total = rows.reduce((sum, row) => sum + models.reduce((s, model) => s + Number(row[model]), 0), 0);
  return (
    <figure
      className="chart"
      aria-label={`Charges per UTC day for the last 30 days: ${dollars(total)} in all`}
    >
      <ResponsiveContainer width="100%" height={260}>
        <BarChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="day" tickFormatter={(day: string) => day.slice(5)} minTickGap={16} />
          {/* Charges are whole cents: no tick between two of them. */}
          <YAxis allowDecimals={false} tickFormatter={(cents: number) => dollars(cents)} width={64} />
          <Tooltip formatter={(cents) => dollars(Number(cents))} />
          <Legend />
          {models.map((model, index) => (
            <Bar
              key={model}
              dataKey={model}
              stackId="cents"
              fill={seriesColour(index)}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
      <figcaption className="hint">
        Charged per UTC day, by model ({dollars(total)} in these 30 days).
      </figcaption>
    </figure>
  );
}
