import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ErrorsRow, LatencyRow, UsageRow } from '../api/types.ts';
import { seriesColour } from '../colours.ts';
import { Loaded } from '../components.tsx';
import { count, duration } from '../format.ts';
import { useAnalytics } from './queries.ts';

// The analytics of the last 7 days (the API's default range): tokens by model and day, span
// latency percentiles by kind, and errors by day. Each chart is a figure whose label says what it
// shows in words, for whoever cannot see it.

/** Rows of `{ [x]: …, [series]: value }` from long rows, one series per distinct `series` value. */
function pivot<R>(
  rows: readonly R[],
  x: (row: R) => string,
  series: (row: R) => string,
  value: (row: R) => number,
) {
  const names = [...new Set(rows.map(series))].sort();
  const byX = new Map<string, Record<string, string | number>>();
  for (const row of rows) {
    const key = x(row);
    const entry = byX.get(key) ?? { x: key, ...Object.fromEntries(names.map((name) => [name, 0])) };
    entry[series(row)] = Number(entry[series(row)]) + value(row);
    byX.set(key, entry);
  }
  return { data: [...byX.values()].sort((a, b) => String(a.x).localeCompare(String(b.x))), names };
}

export function Analytics({ orgId }: { orgId: string }) {
  const { usage, latency, errors } = useAnalytics(orgId);
  return (
    <section aria-labelledby="analytics-title">
      <h2 id="analytics-title">The last 7 days</h2>
      <div className="chart-grid">
        <Chart title="Input tokens by model" query={usage} render={(rows) => <UsageChart rows={rows} />} />
        <Chart title="Span latency by kind" query={latency} render={(rows) => <LatencyChart rows={rows} />} />
        <Chart title="Errors by day" query={errors} render={(rows) => <ErrorsChart rows={rows} />} />
      </div>
    </section>
  );
}

function Chart<D extends unknown[]>({
  title,
  query,
  render,
}: {
  title: string;
  query: UseQueryResult<D>;
  render: (data: D) => ReactNode;
}) {
  return (
    <div className="card chart-card">
      <h3>{title}</h3>
      <Loaded
        query={query}
        what={title.toLowerCase()}
        empty={<p className="muted">No spans in these days.</p>}
      >
        {render}
      </Loaded>
    </div>
  );
}

function Bars({
  data,
  names,
  label,
  format,
}: {
  data: object[];
  names: string[];
  label: string;
  format: (n: number) => string;
}) {
  return (
    <figure className="chart" aria-label={label}>
      <ResponsiveContainer width="100%" height={200}>
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="x" />
          <YAxis tickFormatter={format} width={56} />
          <Tooltip formatter={(value) => format(Number(value))} />
          <Legend />
          {names.map((name, index) => (
            <Bar key={name} dataKey={name} fill={seriesColour(index)} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

function UsageChart({ rows }: { rows: UsageRow[] }) {
  const { data, names } = pivot(
    rows,
    (r) => r.day.slice(5),
    (r) => r.model,
    (r) => r.input_tokens,
  );
  const total = rows.reduce((sum, r) => sum + r.input_tokens, 0);
  return (
    <Bars
      data={data}
      names={names}
      format={count}
      label={`${count(total)} input tokens over ${names.length} models`}
    />
  );
}

function LatencyChart({ rows }: { rows: LatencyRow[] }) {
  const data = rows.map((r) => ({ x: r.kind, p50: r.p50_ms, p90: r.p90_ms, p99: r.p99_ms }));
  const label = rows.map((r) => `${r.kind}: p50 ${duration(r.p50_ms)}, p99 ${duration(r.p99_ms)}`).join('; ');
  return (
    <Bars
      data={data}
      names={['p50', 'p90', 'p99']}
      format={duration}
      label={`Latency percentiles. ${label}`}
    />
  );
}

function ErrorsChart({ rows }: { rows: ErrorsRow[] }) {
  const { data, names } = pivot(
    rows,
    (r) => r.day.slice(5),
    (r) => r.kind,
    (r) => r.errors,
  );
  const errors = rows.reduce((sum, r) => sum + r.errors, 0);
  const spans = rows.reduce((sum, r) => sum + r.spans, 0);
  return (
    <Bars
      data={data}
      names={names}
      format={count}
      label={`${count(errors)} failed spans of ${count(spans)}`}
    />
  );
}
