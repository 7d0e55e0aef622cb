import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ErrorsRow, LatencyRow, UsageRow } from '../api/types.ts';
import { seriesColour } from '../colours.ts';
import { Loaded } from '../components.tsx';
import { QuickRanges } from '../filter-form.tsx';
import { count, duration, usd } from '../format.ts';
import { quickRanges, type RangeParam, rangeOf, rangeStart } from '../time-range.ts';
import { useAnalytics } from './queries.ts';

// The analytics of a quick range up to now, the last 7 days (the API's default) unless another is
// chosen (`analytics_range` in the address, apart from the trace list's, whose From may be further
// back than the API's month of analytics): tokens and cost by model and day, span latency
// percentiles by kind, and errors by day. Each chart is a figure whose label says what it shows
// in words, for whoever cannot see it.

const analyticsRange: RangeParam = { param: 'analytics_range', times: [], reset: [], fallback: '7d' };

/**
 * Rows of `{ [x]: …, [series]: value }` from long rows, one series per distinct `series` value
 * with a value. A series is 0 on an x it has no row for; a row whose value is null (a cost the API
 * has none of) is no figure, so the series has none there rather than 0, and the tooltip leaves
 * it out.
 */
function pivot<R>(
  rows: readonly R[],
  x: (row: R) => string,
  series: (row: R) => string,
  value: (row: R) => number | null,
) {
  const names = [...new Set(rows.filter((row) => value(row) !== null).map(series))].sort();
  const zeros = Object.fromEntries(names.map((name) => [name, 0]));
  const byX = new Map<string, Record<string, string | number>>();
  /** The series each x has a row of without a value: no figure there, rather than 0. */
  const noFigure = new Map<string, Set<string>>();
  for (const row of rows) {
    const key = x(row);
    const entry = byX.get(key) ?? { x: key, ...zeros };
    byX.set(key, entry);
    const amount = value(row);
    if (amount === null) noFigure.set(key, (noFigure.get(key) ?? new Set()).add(series(row)));
    else entry[series(row)] = Number(entry[series(row)]) + amount;
  }
  for (const [key, unvalued] of noFigure) {
    const entry = byX.get(key);
    for (const name of unvalued) if (entry?.[name] === 0) delete entry[name];
  }
  return { data: [...byX.values()].sort((a, b) => String(a.x).localeCompare(String(b.x))), names };
}

export function Analytics({ orgId }: { orgId: string }) {
  const [search] = useSearchParams();
  const range = rangeOf(search, analyticsRange.param);
  const { usage, latency, errors } = useAnalytics(orgId, range && rangeStart(range, new Date()));
  const shown = range ?? quickRanges.find((quick) => quick.id === analyticsRange.fallback);
  return (
    <section aria-labelledby="analytics-title">
      <h2 id="analytics-title">{shown?.last}</h2>
      <QuickRanges label="Time range of the analytics" of={analyticsRange} />
      <div className="chart-grid">
        <Chart title="Input tokens by model" query={usage} render={(rows) => <UsageChart rows={rows} />} />
        <Chart title="Cost by model" query={usage} render={(rows) => <CostChart rows={rows} />} />
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
        empty={<p className="muted">No spans in this time.</p>}
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
          {/* As wide as its longest tick: a cost of $0.00036 or a latency of 600 ms is not cut. */}
          <YAxis tickFormatter={format} width="auto" />
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

/**
 * USD by model and day, over the generations whose model had a price when they were received; a
 * model with none is named in the label, not drawn as $0.
 */
function CostChart({ rows }: { rows: UsageRow[] }) {
  const { data, names } = pivot(
    rows,
    (r) => r.day.slice(5),
    (r) => r.model,
    (r) => r.cost_usd,
  );
  const unpriced = [...new Set(rows.map((r) => r.model))].filter((model) => !names.includes(model)).sort();
  const noPrice = unpriced.length > 0 ? `no price for ${unpriced.join(', ')}` : '';
  if (names.length === 0)
    return <p className="muted">No cost in this time: {noPrice || 'no generations'}.</p>;
  const total = rows.reduce((sum, r) => sum + (r.cost_usd ?? 0), 0);
  const priced = `${names.length} priced model${names.length === 1 ? '' : 's'}`;
  return (
    <Bars
      data={data}
      names={names}
      format={usd}
      label={`${usd(total)} over ${priced}${noPrice && `; ${noPrice}`}`}
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
