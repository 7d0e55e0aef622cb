import type { SpanKind } from '../../domain/tracing/span.ts';
import { type ClickHouseClient, type SqlFragment, sql } from '../../platform/clickhouse.ts';

// Analytics over the spans read model, within one org and a bounded range of span start times.
// FINAL: a redelivered span must not be counted twice. Days are UTC days of the span's start.

export interface Range {
  from: Date;
  to: Date;
}

const toNanos = (time: Date) => BigInt(time.getTime()) * 1_000_000n;
const startDay = sql`toDate(toDateTime(intDiv(start_time_unix_nano, 1000000000), 'UTC'))`;
/** An end before the start (a clock step on the sender) counts as zero, not as a wrapped UInt64. */
const duration = sql`if(end_time_unix_nano > start_time_unix_nano, end_time_unix_nano - start_time_unix_nano, 0)`;

function inRange(orgId: string, range: Range): SqlFragment {
  return sql`org_id = ${orgId}
    AND start_time_unix_nano >= ${toNanos(range.from)}
    AND start_time_unix_nano < ${toNanos(range.to)}`;
}

async function rows<T>(clickhouse: ClickHouseClient, query: SqlFragment): Promise<T[]> {
  const result = await clickhouse.query({ query: query.text, format: 'JSONEachRow' });
  return result.json<T>();
}

export interface ModelUsage {
  day: string;
  model: string;
  spans: number;
  inputTokens: number;
  outputTokens: number;
}

/** Spans by model by day; tokens over `generation` spans only (001, Trace-level values). */
export async function usageByModel(
  clickhouse: ClickHouseClient,
  orgId: string,
  range: Range,
): Promise<ModelUsage[]> {
  const found = await rows<{
    day: string;
    usage_model: string;
    spans: string;
    input: string;
    output: string;
  }>(
    clickhouse,
    sql`SELECT ${startDay} AS day, assumeNotNull(model) AS usage_model, count() AS spans,
        ifNull(sumIf(input_tokens, kind = 'generation'), 0) AS input,
        ifNull(sumIf(output_tokens, kind = 'generation'), 0) AS output
      FROM spans FINAL
      WHERE ${inRange(orgId, range)} AND isNotNull(model)
      GROUP BY day, usage_model
      ORDER BY day, usage_model`,
  );
  return found.map((row) => ({
    day: row.day,
    model: row.usage_model,
    spans: Number(row.spans),
    inputTokens: Number(row.input),
    outputTokens: Number(row.output),
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
  clickhouse: ClickHouseClient,
  orgId: string,
  range: Range,
): Promise<KindLatency[]> {
  const found = await rows<{ kind: SpanKind; spans: string; percentiles: string[] }>(
    clickhouse,
    sql`SELECT kind, count() AS spans, quantilesExact(0.5, 0.9, 0.99)(${duration}) AS percentiles
      FROM spans FINAL
      WHERE ${inRange(orgId, range)}
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
  clickhouse: ClickHouseClient,
  orgId: string,
  range: Range,
): Promise<KindErrors[]> {
  const found = await rows<{ day: string; kind: SpanKind; spans: string; errors: string }>(
    clickhouse,
    sql`SELECT ${startDay} AS day, kind, count() AS spans, countIf(status_code = 2) AS errors
      FROM spans FINAL
      WHERE ${inRange(orgId, range)}
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
