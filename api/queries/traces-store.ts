import type { TraceCursor } from '../../domain/tracing/queries-cursor.ts';
import type { SpanKind } from '../../domain/tracing/span.ts';
import type { TraceSummary } from '../../domain/tracing/trace-summary.ts';
import {
  type ClickHouseReader,
  hexId,
  idBytes,
  identifier,
  joinSql,
  type SqlFragment,
  sql,
} from '../../platform/clickhouse.ts';

// The trace list, read from `trace_fragments` (infra/migrations/clickhouse/0003_trace_fragments.sql),
// always within one org: a trace is the union of its fragments, one row per insert that brought
// spans of it. Every value below is an aggregate over fragments that a repeated fragment cannot
// change (min, max, the least candidate by precedence, unions, counts of distinct span ids), so a
// redelivered batch changes no answer and no FINAL is needed.
//
// A page is read from a window of the newest fragments rather than from every trace of the org.
// Fragments are ordered by their earliest start, and no fragment of a trace starts before the
// trace, so the fragments starting at or after a bound hold all of every trace that starts at or
// after it: those traces' values are exact there. A trace with fragments on both sides of the
// bound started before it, and is left out. So the window's traces, newest first, are the page
// once there are enough of them; else the window widens, at last to the whole org.

const nanosPerMs = 1_000_000n;
const toNanos = (time: Date) => BigInt(time.getTime()) * nanosPerMs;

const traceStart = sql`min(min_start_time_unix_nano)`;

/**
 * Each fragment's candidate for a trace value is written behind its precedence, 41 characters of
 * fixed-width hex (not root, start, offset, place in the event: summarizeTrace's order), so the
 * trace's value is the least candidate over its fragments, without the precedence. Null when no
 * span of the trace has the value.
 */
const precedenceLength = 41;
const withoutPrecedence = (candidate: SqlFragment) => sql`substring(${candidate}, ${precedenceLength + 1})`;

/** The fragment column of each trace value's candidates. */
export const traceValues = {
  sessionId: identifier('trace_session_id'),
  userId: identifier('trace_user_id'),
  service: identifier('trace_service'),
  environment: identifier('trace_environment'),
};
type TraceValue = keyof typeof traceValues;
/** The trace's value: its fragments' least candidate, without the precedence. */
export const traceValue = (column: SqlFragment) => withoutPrecedence(sql`min(${column})`);

/**
 * A fragment whose candidate is `given` behind a precedence: a cheaper test than cutting the
 * precedence off. The trace has the value when that candidate is also its least (`traceValue`).
 */
export function hasCandidate(column: SqlFragment, given: string): SqlFragment {
  return sql`endsWith(${column}, ${given}) AND length(${column}) = ${precedenceLength + Buffer.byteLength(given)}`;
}

/** The trace's distinct `generation` spans as (id, input, output, cost): a copy of a span adds nothing. */
const generations = sql`groupUniqArrayArray(arrayMap((id, input, output, cost) -> tuple(id, input, output, cost),
  generation_span_ids, generation_input_tokens, generation_output_tokens, generation_cost_nano_usd))`;

/** Tokens over the trace's generations. */
const generationTokens = (index: 2 | 3) => sql`arraySum(g -> tupleElement(g, ${index}), ${generations})`;

/** Cost over the generations that have one; NULL when none has (no cost is not a cost of 0). */
const generationCost = sql`if(arrayExists(g -> isNotNull(tupleElement(g, 4)), ${generations}),
  arraySum(g -> ifNull(tupleElement(g, 4), 0), ${generations}), NULL)`;

/** The trace-level values of 001 ("Trace-level values"), as summarizeTrace computes them. */
export const traceAggregates = sql`
  ${traceStart} AS trace_start,
  max(max_end_time_unix_nano) AS trace_end,
  length(groupUniqArrayArray(span_ids)) AS span_count,
  length(groupUniqArrayArray(error_span_ids)) AS error_count,
  ${generationTokens(2)} AS trace_input_tokens,
  ${generationTokens(3)} AS trace_output_tokens,
  ${generationCost} AS trace_cost_nano_usd,
  ${traceValue(sql`root_span`)} AS root_value,
  ${traceValue(traceValues.sessionId)} AS session_value,
  ${traceValue(traceValues.userId)} AS user_value,
  ${traceValue(traceValues.service)} AS service_value,
  ${traceValue(traceValues.environment)} AS environment_value,
  arraySort(groupUniqArrayArray(span_models)) AS models`;

export interface TraceRow {
  trace_hex: string;
  trace_start: string;
  trace_end: string;
  span_count: string;
  error_count: string;
  trace_input_tokens: string;
  trace_output_tokens: string;
  trace_cost_nano_usd: string | null;
  root_value: string | null;
  session_value: string | null;
  user_value: string | null;
  service_value: string | null;
  environment_value: string | null;
  models: string[];
}

export interface ListedTrace {
  summary: TraceSummary;
  models: string[];
}

export function listedTrace(row: TraceRow): ListedTrace {
  return {
    summary: {
      traceId: row.trace_hex,
      sessionId: row.session_value,
      userId: row.user_value,
      serviceName: row.service_value,
      environment: row.environment_value,
      inputTokens: Number(row.trace_input_tokens),
      outputTokens: Number(row.trace_output_tokens),
      costNanoUsd: row.trace_cost_nano_usd === null ? null : Number(row.trace_cost_nano_usd),
      startTimeUnixNano: BigInt(row.trace_start),
      endTimeUnixNano: BigInt(row.trace_end),
      spanCount: Number(row.span_count),
      rootSpanName: row.root_value,
      errorCount: Number(row.error_count),
    },
    models: row.models,
  };
}

/** One trace's values from its fragments, as the list has them; undefined when the org has no such trace. */
export async function oneTrace(
  clickhouse: ClickHouseReader,
  orgId: string,
  traceId: string,
): Promise<ListedTrace | undefined> {
  const query = sql`
    SELECT ${hexId('trace_id')} AS trace_hex, ${traceAggregates}
    FROM trace_fragments
    PREWHERE org_id = ${orgId} AND trace_id = ${idBytes(traceId)}
    GROUP BY trace_id`;
  const result = await clickhouse.query({ query: query.text, format: 'JSONEachRow' });
  const [row] = await result.json<TraceRow>();
  return row && listedTrace(row);
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

/** The fragments at or after `lower` that match `condition`, as a trace id set. */
function withFragment(orgId: string, lower: bigint, condition: SqlFragment): SqlFragment {
  return sql`trace_id IN (SELECT trace_id FROM trace_fragments
    WHERE org_id = ${orgId} AND min_start_time_unix_nano >= ${lower} AND ${condition})`;
}

/**
 * Each filter as exact conditions on the grouped traces, and fragment conditions that narrow the
 * traces grouped. A trace value is one of its fragments' candidates, so a fragment with the given
 * value narrows to few traces; without one, a fragment matching model, kind or name does (any span
 * of the trace: there the fragment condition is the filter itself).
 */
function traceConditions(orgId: string, filter: TraceFilter, lower: bigint) {
  const fragment: SqlFragment[] = [];
  const exact: SqlFragment[] = [];
  for (const name of Object.keys(traceValues) as TraceValue[]) {
    const given = filter[name];
    if (given === undefined) continue;
    fragment.push(withFragment(orgId, lower, hasCandidate(traceValues[name], given)));
    exact.push(sql`${traceValue(traceValues[name])} = ${given}`);
  }
  const anySpan = [
    filter.model !== undefined && sql`has(span_models, ${filter.model})`,
    filter.kind !== undefined && sql`has(span_kinds, ${filter.kind})`,
    filter.name !== undefined &&
      sql`arrayExists(n -> positionCaseInsensitiveUTF8(n, ${filter.name}) > 0, span_names)`,
  ].filter((condition): condition is SqlFragment => condition !== false);
  const valueFiltered = fragment.length > 0;
  for (const [index, condition] of anySpan.entries()) {
    // Without a trace value to narrow by, the first of these narrows (the cheapest to scan first).
    if (!valueFiltered && index === 0) fragment.push(withFragment(orgId, lower, condition));
    exact.push(sql`max(${condition}) = 1`);
  }
  if (filter.from) exact.push(sql`${traceStart} >= ${toNanos(filter.from)}`);
  if (filter.to) exact.push(sql`${traceStart} < ${toNanos(filter.to)}`);
  if (filter.cursor)
    exact.push(
      sql`tuple(${traceStart}, trace_id) < tuple(${filter.cursor.startTimeUnixNano}, ${idBytes(filter.cursor.traceId)})`,
    );
  return { fragment, exact };
}

/**
 * The earliest start of the org's `count`-th newest fragment that can begin a page (before `to`
 * and the cursor, not before `from`), or 0 when it has fewer.
 */
async function windowBound(
  clickhouse: ClickHouseReader,
  orgId: string,
  filter: TraceFilter,
  count: number,
): Promise<bigint> {
  const conditions = [sql`org_id = ${orgId}`];
  if (filter.from) conditions.push(sql`min_start_time_unix_nano >= ${toNanos(filter.from)}`);
  if (filter.to) conditions.push(sql`min_start_time_unix_nano < ${toNanos(filter.to)}`);
  if (filter.cursor) conditions.push(sql`min_start_time_unix_nano <= ${filter.cursor.startTimeUnixNano}`);
  const query = sql`
    SELECT min_start_time_unix_nano AS bound FROM trace_fragments
    WHERE ${joinSql(conditions, ' AND ')}
    ORDER BY min_start_time_unix_nano DESC
    LIMIT 1 OFFSET ${count - 1}`;
  const result = await clickhouse.query({ query: query.text, format: 'JSONEachRow' });
  const [row] = await result.json<{ bound: string }>();
  return row ? BigInt(row.bound) : 0n;
}

/**
 * The window's traces that pass the filters, newest first, at most `count`, with every value:
 * first their ids from the grouped fragments with only what the filters need, then the values
 * for those traces only.
 */
async function windowTraces(
  clickhouse: ClickHouseReader,
  orgId: string,
  filter: TraceFilter,
  lower: bigint,
  count: number,
): Promise<TraceRow[]> {
  const { fragment, exact } = traceConditions(orgId, filter, lower);
  const inWindow = sql`org_id = ${orgId} AND min_start_time_unix_nano >= ${lower}`;
  const where = joinSql([inWindow, ...fragment], ' AND ');
  const having = exact.length === 0 ? sql`1` : joinSql(exact, ' AND ');
  const query = sql`
    SELECT ${hexId('trace_id')} AS trace_hex, ${traceAggregates}
    FROM trace_fragments
    PREWHERE ${inWindow} AND trace_id IN (
      SELECT trace_id FROM trace_fragments
      WHERE ${where}
      GROUP BY trace_id
      HAVING ${having}
      ORDER BY ${traceStart} DESC, trace_id DESC
      LIMIT ${count})
    GROUP BY trace_id
    ORDER BY trace_start DESC, trace_id DESC`;
  const result = await clickhouse.query({ query: query.text, format: 'JSONEachRow' });
  return result.json<TraceRow>();
}

/** Of `traceIds`, those with a fragment starting before `lower`: they started before the window. */
async function startedBefore(
  clickhouse: ClickHouseReader,
  orgId: string,
  lower: bigint,
  traceIds: string[],
): Promise<Set<string>> {
  if (lower === 0n || traceIds.length === 0) return new Set();
  const query = sql`
    SELECT DISTINCT ${hexId('trace_id')} AS trace_hex FROM trace_fragments
    PREWHERE org_id = ${orgId} AND min_start_time_unix_nano < ${lower}
      AND trace_id IN (${joinSql(traceIds.map(idBytes), ', ')})`;
  const result = await clickhouse.query({ query: query.text, format: 'JSONEachRow' });
  return new Set((await result.json<{ trace_hex: string }>()).map((row) => row.trace_hex));
}

/** Fragments in the first window per page row wanted; a wider window after that, then the org. */
const firstWindowPerRow = 4;
const widerWindowFactor = 4;

interface Page {
  traces: ListedTrace[];
  more: boolean;
}

/** Newest first by (start, trace id), one page and whether another follows. */
export async function listTraces(
  clickhouse: ClickHouseReader,
  orgId: string,
  filter: TraceFilter,
): Promise<Page> {
  const wanted = filter.limit + 1;
  const from = filter.from ? toNanos(filter.from) : 0n;

  /** The page from the fragments starting at or after `bound`, if they hold all of it. */
  async function pageFrom(bound: bigint): Promise<Page | undefined> {
    const lower = bound > from ? bound : from;
    // With a lower bound, twice the page: room for traces left out as having started before it.
    const found = await windowTraces(clickhouse, orgId, filter, lower, lower > 0n ? 2 * wanted : wanted);
    const before = await startedBefore(
      clickhouse,
      orgId,
      lower,
      found.map((row) => row.trace_hex),
    );
    const page = found.filter((row) => !before.has(row.trace_hex));
    // Fewer than wanted from a window that is not the whole (filtered) org: a wider one may add some.
    if (page.length < wanted && bound > 0n) return undefined;
    return { traces: page.slice(0, filter.limit).map(listedTrace), more: page.length > filter.limit };
  }

  // Windows of the newest fragments, then the whole org. A filter on a span's model, kind or name
  // leaves fewer traces in a window: one wider window first. A filter on a trace value matches few
  // traces wherever they started: the whole org at once, where only the traces with a matching
  // fragment are grouped.
  const valueFiltered = [filter.sessionId, filter.userId, filter.service, filter.environment].some(
    (given) => given !== undefined,
  );
  const spanFiltered = [filter.model, filter.kind, filter.name].some((given) => given !== undefined);
  const first = firstWindowPerRow * wanted;
  const windows = valueFiltered
    ? []
    : spanFiltered
      ? [first * widerWindowFactor]
      : [first, first * widerWindowFactor];
  for (const fragments of windows) {
    const bound = await windowBound(clickhouse, orgId, filter, fragments);
    const page = await pageFrom(bound);
    if (page) return page;
  }
  return (await pageFrom(0n)) as Page;
}
