import type { TraceCursor } from '../../domain/tracing/queries-cursor.ts';
import type { SpanKind } from '../../domain/tracing/span.ts';
import type { TraceSummary } from '../../domain/tracing/trace-summary.ts';
import { type ClickHouseClient, joinSql, type SqlFragment, sql } from '../../platform/clickhouse.ts';

// Reads of the spans read model (infra/migrations/clickhouse/0002_spans.sql), always within one
// org. FINAL collapses a redelivered span before anything is counted or shown.

const nanosPerMs = 1_000_000n;
/** The order the spans were sent in: the event's offset, then the span's place in it. */
export const sentOrder = sql`received_offset, received_index`;
const toNanos = (time: Date) => BigInt(time.getTime()) * nanosPerMs;

/** Roots first, then start time, then the order sent in: summarizeTrace's stable sort as a key. */
const precedence = sql`tuple(parent_span_id != '', start_time_unix_nano, ${sentOrder})`;
const traceStart = sql`min(start_time_unix_nano)`;
const models = sql`arraySort(groupUniqArray(model))`;
/** argMin skips NULLs: the first span in precedence order that has the value. */
const traceValues = {
  sessionId: sql`argMin(session_id, ${precedence})`,
  userId: sql`argMin(user_id, ${precedence})`,
  service: sql`argMin(service_name, ${precedence})`,
  environment: sql`argMin(environment, ${precedence})`,
};

/**
 * The trace-level values of 001 ("Trace-level values") as SQL aggregates over a trace's spans,
 * matching `summarizeTrace`: session, user, service and environment from the root span, else from
 * the earliest span that has one; tokens over `generation` spans only; the earliest root's name.
 */
const traceAggregates = sql`
  ${traceStart} AS trace_start,
  max(end_time_unix_nano) AS trace_end,
  count() AS span_count,
  countIf(status_code = 2) AS error_count,
  ifNull(sumIf(input_tokens, kind = 'generation'), 0) AS trace_input_tokens,
  ifNull(sumIf(output_tokens, kind = 'generation'), 0) AS trace_output_tokens,
  if(countIf(parent_span_id = '') > 0,
     argMinIf(name, tuple(start_time_unix_nano, ${sentOrder}), parent_span_id = ''), NULL) AS root_span_name,
  ${traceValues.sessionId} AS trace_session_id,
  ${traceValues.userId} AS trace_user_id,
  ${traceValues.service} AS trace_service,
  ${traceValues.environment} AS trace_environment,
  ${models} AS models`;

interface TraceRow {
  trace_id: string;
  trace_start: string;
  trace_end: string;
  span_count: string;
  error_count: string;
  trace_input_tokens: string;
  trace_output_tokens: string;
  root_span_name: string | null;
  trace_session_id: string | null;
  trace_user_id: string | null;
  trace_service: string | null;
  trace_environment: string | null;
  models: string[];
}

export interface ListedTrace {
  summary: TraceSummary;
  models: string[];
}

function listedTrace(row: TraceRow): ListedTrace {
  return {
    summary: {
      traceId: row.trace_id,
      sessionId: row.trace_session_id,
      userId: row.trace_user_id,
      serviceName: row.trace_service,
      environment: row.trace_environment,
      inputTokens: Number(row.trace_input_tokens),
      outputTokens: Number(row.trace_output_tokens),
      startTimeUnixNano: BigInt(row.trace_start),
      endTimeUnixNano: BigInt(row.trace_end),
      spanCount: Number(row.span_count),
      rootSpanName: row.root_span_name,
      errorCount: Number(row.error_count),
    },
    models: row.models,
  };
}

export interface TraceFilter {
  from?: Date;
  to?: Date;
  sessionId?: string;
  userId?: string;
  service?: string;
  environment?: string;
  model?: string;
  kind?: SpanKind;
  name?: string;
  cursor?: TraceCursor;
  limit: number;
}

/**
 * Each filter as a condition on the trace's aggregates (only those filtered on get computed while
 * choosing the page); `model`, `kind` and `name` match any span of the trace.
 */
function traceConditions(filter: TraceFilter): SqlFragment[] {
  const conditions: (SqlFragment | false | undefined)[] = [
    filter.from && sql`${traceStart} >= ${toNanos(filter.from)}`,
    filter.to && sql`${traceStart} < ${toNanos(filter.to)}`,
    filter.sessionId !== undefined && sql`${traceValues.sessionId} = ${filter.sessionId}`,
    filter.userId !== undefined && sql`${traceValues.userId} = ${filter.userId}`,
    filter.service !== undefined && sql`${traceValues.service} = ${filter.service}`,
    filter.environment !== undefined && sql`${traceValues.environment} = ${filter.environment}`,
    filter.model !== undefined && sql`has(${models}, ${filter.model})`,
    filter.kind !== undefined && sql`countIf(kind = ${filter.kind}) > 0`,
    filter.name !== undefined && sql`countIf(positionCaseInsensitiveUTF8(name, ${filter.name}) > 0) > 0`,
    filter.cursor &&
      sql`tuple(${traceStart}, trace_id) < tuple(${filter.cursor.startTimeUnixNano}, ${filter.cursor.traceId})`,
  ];
  return conditions.filter((condition): condition is SqlFragment => Boolean(condition));
}

/**
 * Newest first by (start, trace id), one page and whether another follows. Aggregated per trace at
 * read time, which is exact under redelivery: first the page's trace ids from the filtered
 * aggregates alone, then every value for those traces only (the argMins are the costly part; a
 * million spans in an org take under a second on the 2-core test machine).
 */
export async function listTraces(
  clickhouse: ClickHouseClient,
  orgId: string,
  filter: TraceFilter,
): Promise<{ traces: ListedTrace[]; more: boolean }> {
  const conditions = traceConditions(filter);
  const having = conditions.length === 0 ? sql`1` : joinSql(conditions, ' AND ');
  const query = sql`
    SELECT trace_id, ${traceAggregates}
    FROM spans FINAL
    WHERE org_id = ${orgId} AND trace_id IN (
      SELECT trace_id FROM (
        SELECT trace_id, ${traceStart} AS page_start
        FROM spans FINAL
        WHERE org_id = ${orgId}
        GROUP BY trace_id
        HAVING ${having}
        ORDER BY page_start DESC, trace_id DESC
        LIMIT ${filter.limit + 1}))
    GROUP BY trace_id
    ORDER BY trace_start DESC, trace_id DESC`;
  const result = await clickhouse.query({ query: query.text, format: 'JSONEachRow' });
  const rows = await result.json<TraceRow>();
  return { traces: rows.slice(0, filter.limit).map(listedTrace), more: rows.length > filter.limit };
}
