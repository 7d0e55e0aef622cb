import type { SpanKind } from '../../domain/tracing/span.ts';
import { type ClickHouseReader, joinSql, type SqlFragment, sql } from '../../platform/clickhouse.ts';
import {
  type FactsPart,
  readAsPlanned,
  receiptHourRange,
  settledHours,
} from '../../projections/span-facts-layout.ts';

// Analytics over `span_facts` (infra/migrations/clickhouse/0004_span_facts.sql), within one org and
// a bounded range of span start times; days are UTC days of the span's start. Each span must count
// once, and FINAL, which makes sure of it, costs more than the rest of the read at a million spans.
// So a read lists the table's parts first: a receipt hour that is one merged part holds each span
// once and is read as it is; the other hours are read with FINAL. It lists the parts again after:
// if an hour read as it was is no longer that same part (a part arrived, merged or was rewritten
// by a mutation meanwhile), it reads again, and at last with FINAL throughout.

export interface Range {
  from: Date;
  to: Date;
}

const toNanos = (time: Date) => BigInt(time.getTime()) * 1_000_000n;
const startDay = sql`toDate(toDateTime(intDiv(start_time_unix_nano, 1000000000), 'UTC'))`;

/** The columns an analytics query reads. */
const factColumns = sql`start_time_unix_nano, kind, model, generation_input_tokens,
  generation_output_tokens, generation_cost_nano_usd, status_code, duration_nanos`;

function inRange(orgId: string, range: Range): SqlFragment {
  return sql`org_id = ${orgId}
    AND start_time_unix_nano >= ${toNanos(range.from)}
    AND start_time_unix_nano < ${toNanos(range.to)}`;
}

/** The active parts of `span_facts`. */
async function factsParts(clickhouse: ClickHouseReader): Promise<FactsPart[]> {
  const result = await clickhouse.query({
    query: `SELECT partition, name, level FROM system.parts
      WHERE database = currentDatabase() AND table = 'span_facts' AND active`,
    format: 'JSONEachRow',
  });
  return (await result.json<{ partition: string; name: string; level: number }>()).map((row) => ({
    partition: row.partition,
    name: row.name,
    level: Number(row.level),
  }));
}

/** The org's facts in the range: the unsettled receipt hours with FINAL, the others as stored. */
function factsSource(orgId: string, range: Range, unsettledHours: readonly string[] | 'all'): SqlFragment {
  const asStored = sql`SELECT ${factColumns} FROM span_facts WHERE ${inRange(orgId, range)}`;
  const merged = sql`SELECT ${factColumns} FROM span_facts FINAL WHERE ${inRange(orgId, range)}`;
  if (unsettledHours === 'all') return merged;
  if (unsettledHours.length === 0) return asStored;
  // As time ranges on the partition column, so FINAL reads those hours' partitions only.
  const unsettled = joinSql(
    unsettledHours.map((hour) => {
      const { start, end } = receiptHourRange(hour);
      return sql`(trace_first_received_at >= ${start} AND trace_first_received_at < ${end})`;
    }),
    ' OR ',
  );
  return sql`${asStored} AND NOT (${unsettled}) UNION ALL ${merged} AND (${unsettled})`;
}

/** Runs `query`, an aggregate over the org's facts in the range, so that every span counts once. */
async function countedOnce<T>(
  clickhouse: ClickHouseReader,
  orgId: string,
  range: Range,
  query: (source: SqlFragment) => SqlFragment,
): Promise<T[]> {
  const run = async (source: SqlFragment) => {
    const result = await clickhouse.query({ query: query(source).text, format: 'JSONEachRow' });
    return result.json<T>();
  };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const plan = settledHours(await factsParts(clickhouse));
    if (plan.settled.size === 0) break;
    const rows = await run(factsSource(orgId, range, plan.unsettled));
    if (readAsPlanned(plan, await factsParts(clickhouse))) return rows;
  }
  return run(factsSource(orgId, range, 'all'));
}

export interface ModelUsage {
  day: string;
  model: string;
  spans: number;
  inputTokens: number;
  outputTokens: number;
  /** Nano-USD over the generations with a cost; null when none has one. */
  costNanoUsd: number | null;
}

/** Spans by model by day; tokens and cost over `generation` spans only (001, Trace-level values). */
export async function usageByModel(
  clickhouse: ClickHouseReader,
  orgId: string,
  range: Range,
): Promise<ModelUsage[]> {
  const found = await countedOnce<{
    day: string;
    usage_model: string;
    spans: string;
    input: string;
    output: string;
    cost: string | null;
  }>(
    clickhouse,
    orgId,
    range,
    (source) => sql`SELECT ${startDay} AS day, assumeNotNull(model) AS usage_model, count() AS spans,
        sum(generation_input_tokens) AS input, sum(generation_output_tokens) AS output,
        if(countIf(isNotNull(generation_cost_nano_usd)) = 0, NULL, sum(ifNull(generation_cost_nano_usd, 0))) AS cost
      FROM (${source})
      WHERE isNotNull(model)
      GROUP BY day, usage_model
      ORDER BY day, usage_model`,
  );
  return found.map((row) => ({
    day: row.day,
    model: row.usage_model,
    spans: Number(row.spans),
    inputTokens: Number(row.input),
    outputTokens: Number(row.output),
    costNanoUsd: row.cost === null ? null : Number(row.cost),
  }));
}

export interface KindLatency {
  kind: SpanKind;
  spans: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
}

/** Span duration percentiles by kind; exact (quantilesExact), so equal data gives equal answers. */
export async function latencyByKind(
  clickhouse: ClickHouseReader,
  orgId: string,
  range: Range,
): Promise<KindLatency[]> {
  const found = await countedOnce<{ kind: SpanKind; spans: string; percentiles: string[] }>(
    clickhouse,
    orgId,
    range,
    (source) => sql`SELECT kind, count() AS spans,
        quantilesExact(0.5, 0.9, 0.99)(duration_nanos) AS percentiles
      FROM (${source})
      GROUP BY kind
      ORDER BY kind`,
  );
  const ms = (nanos: string | undefined) => Number(nanos ?? 0) / 1e6;
  return found.map((row) => ({
    kind: row.kind,
    spans: Number(row.spans),
    p50Ms: ms(row.percentiles[0]),
    p90Ms: ms(row.percentiles[1]),
    p99Ms: ms(row.percentiles[2]),
  }));
}

export interface KindErrors {
  day: string;
  kind: SpanKind;
  spans: number;
  errors: number;
}

/** Spans and error spans (status code 2) by day and kind, for every day and kind that has spans. */
export async function errorsByDayAndKind(
  clickhouse: ClickHouseReader,
  orgId: string,
  range: Range,
): Promise<KindErrors[]> {
  const found = await countedOnce<{ day: string; kind: SpanKind; spans: string; errors: string }>(
    clickhouse,
    orgId,
    range,
    (source) => sql`SELECT ${startDay} AS day, kind, count() AS spans, countIf(status_code = 2) AS errors
      FROM (${source})
      GROUP BY day, kind
      ORDER BY day, kind`,
  );
  return found.map((row) => ({
    day: row.day,
    kind: row.kind,
    spans: Number(row.spans),
    errors: Number(row.errors),
  }));
}
